// drops_mini.cpp - a C++ MPI mini-application in the style of DROPS (the
// finite-element code profiled in Szebenyi et al., IPDPS 2011).
//
// Each rank owns a block of a tetrahedral mesh. Every time step assembles a
// stiffness matrix (a loop over tetrahedra calling many tiny member
// functions: Point3::x(), Vertex::coord(), Tetra::vertex(), CSRMatrix::col(),
// ...), runs a few conjugate-gradient iterations (dot products reduced with
// MPI_Allreduce), gathers the solution on rank 0, and rank 0 writes it as
// text, one line per vertex, ending every line with std::endl: a flush, so a
// write system call, per line. The other ranks meanwhile go on to the energy
// check, an MPI_Allreduce, and wait there for rank 0.
//
// Two findings a profile should show:
//   1. rank 0 spends much of its computation time in VTKWriter::write_solution,
//      below it in std::ostream::flush and write(): the std::endl bottleneck
//      (the fix: '\n', one flush at the end);
//   2. ranks 1.. spend most of their time in MPI_Allreduce (under
//      TimeStepper::check_energy), waiting for rank 0.
// And the case where compiler instrumentation explodes: tens of millions of
// calls of one-line member functions per second.
//
// usage: drops_mini [STEPS [CELLS [endl|newline]]]
//   STEPS  time steps (default 20); CELLS  cells per edge of a rank's block
//   (default 16: 6*16^3 tetrahedra, 17^3 vertices a rank); the last argument
//   picks the line ending of the output (default endl: the bottleneck).
// Prints the run time between MPI_Init and MPI_Finalize (rank 0):
//   drops_mini: P ranks, S steps, C cells, energy E, time T s

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <vector>

namespace mini {

// ---- geometry: tiny, frequently called members ----------------------------
class Point3 {
  public:
    Point3() : c_{0, 0, 0} {}
    Point3(double x, double y, double z) : c_{x, y, z} {}
    double x() const { return c_[0]; }
    double y() const { return c_[1]; }
    double z() const { return c_[2]; }
    double operator[](int i) const { return c_[i]; }
    Point3 operator-(const Point3 &o) const { return Point3(x() - o.x(), y() - o.y(), z() - o.z()); }
    Point3 operator+(const Point3 &o) const { return Point3(x() + o.x(), y() + o.y(), z() + o.z()); }
    Point3 operator*(double s) const { return Point3(x() * s, y() * s, z() * s); }
    double dot(const Point3 &o) const { return x() * o.x() + y() * o.y() + z() * o.z(); }
    Point3 cross(const Point3 &o) const
    {
        return Point3(y() * o.z() - z() * o.y(), z() * o.x() - x() * o.z(), x() * o.y() - y() * o.x());
    }

  private:
    double c_[3];
};

class Vertex {
  public:
    Vertex(const Point3 &p, int index) : p_(p), index_(index) {}
    const Point3 &coord() const { return p_; }
    int index() const { return index_; }

  private:
    Point3 p_;
    int index_;
};

class Tetra {
  public:
    Tetra(int a, int b, int c, int d) : v_{a, b, c, d} {}
    int vertex(int i) const { return v_[i]; }
    static int num_vertices() { return 4; }

  private:
    int v_[4];
};

class Mesh {
  public:
    Mesh(int cells, int rank);
    const Vertex &vertex(int i) const { return verts_[i]; }
    const Tetra &tetra(int i) const { return tets_[i]; }
    int num_vertices() const { return (int)verts_.size(); }
    int num_tetras() const { return (int)tets_.size(); }
    int cells() const { return cells_; }

  private:
    int node_id(int i, int j, int k) const { return (k * (cells_ + 1) + j) * (cells_ + 1) + i; }
    int cells_;
    std::vector<Vertex> verts_;
    std::vector<Tetra> tets_;
};

Mesh::Mesh(int cells, int rank) : cells_(cells)
{
    double h = 1.0 / cells;
    for (int k = 0; k <= cells; k++)
        for (int j = 0; j <= cells; j++)
            for (int i = 0; i <= cells; i++)
                verts_.emplace_back(Point3(i * h, j * h, rank + k * h), node_id(i, j, k));
    // every cube into six tetrahedra around its main diagonal
    static const int split[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                    {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    for (int k = 0; k < cells; k++)
        for (int j = 0; j < cells; j++)
            for (int i = 0; i < cells; i++) {
                int c[8];
                for (int n = 0; n < 8; n++)
                    c[n] = node_id(i + (n & 1), j + ((n >> 1) & 1), k + ((n >> 2) & 1));
                for (auto &s : split)
                    tets_.emplace_back(c[s[0]], c[s[1]], c[s[2]], c[s[3]]);
            }
}

// ---- linear algebra: tiny accessors again ----------------------------------
class Vector {
  public:
    explicit Vector(int n = 0) : d_(n, 0.0) {}
    double operator[](int i) const { return d_[i]; }
    double &operator[](int i) { return d_[i]; }
    int size() const { return (int)d_.size(); }
    double *data() { return d_.data(); }
    const double *data() const { return d_.data(); }

  private:
    std::vector<double> d_;
};

class CSRMatrix {
  public:
    explicit CSRMatrix(const Mesh &m);
    int rows() const { return (int)start_.size() - 1; }
    int row_begin(int i) const { return start_[i]; }
    int row_end(int i) const { return start_[i + 1]; }
    int col(int k) const { return col_[k]; }
    double value(int k) const { return val_[k]; }
    void add(int i, int j, double v);
    void clear();
    void multiply(const Vector &x, Vector &y) const;

  private:
    std::vector<int> start_, col_;
    std::vector<double> val_;
};

CSRMatrix::CSRMatrix(const Mesh &m)
{
    int n = m.num_vertices();
    std::vector<std::vector<int>> adj(n);
    for (int t = 0; t < m.num_tetras(); t++)
        for (int a = 0; a < Tetra::num_vertices(); a++)
            for (int b = 0; b < Tetra::num_vertices(); b++) {
                std::vector<int> &r = adj[m.tetra(t).vertex(a)];
                int j = m.tetra(t).vertex(b);
                bool seen = false;
                for (int c : r)
                    seen = seen || c == j;
                if (!seen)
                    r.push_back(j);
            }
    start_.push_back(0);
    for (auto &r : adj) {
        for (int c : r)
            col_.push_back(c);
        start_.push_back((int)col_.size());
    }
    val_.assign(col_.size(), 0.0);
}

void CSRMatrix::add(int i, int j, double v)
{
    for (int k = row_begin(i); k < row_end(i); k++)
        if (col(k) == j) {
            val_[k] += v;
            return;
        }
}

void CSRMatrix::clear()
{
    for (double &v : val_)
        v = 0;
}

void CSRMatrix::multiply(const Vector &x, Vector &y) const
{
    for (int i = 0; i < rows(); i++) {
        double s = 0;
        for (int k = row_begin(i); k < row_end(i); k++)
            s += value(k) * x[col(k)];
        y[i] = s;
    }
}

// ---- finite elements --------------------------------------------------------
class Assembler {
  public:
    void assemble(const Mesh &m, double t, CSRMatrix &a, Vector &rhs) const;

  private:
    static double volume(const Point3 &p0, const Point3 &p1, const Point3 &p2, const Point3 &p3)
    {
        return std::fabs((p1 - p0).dot((p2 - p0).cross(p3 - p0))) / 6.0;
    }
    static double source(const Point3 &p, double t) { return std::sin(p.x() + t) * std::cos(p.y() - p.z()); }
};

void Assembler::assemble(const Mesh &m, double t, CSRMatrix &a, Vector &rhs) const
{
    a.clear();
    for (int i = 0; i < rhs.size(); i++)
        rhs[i] = 0;
    for (int e = 0; e < m.num_tetras(); e++) {
        const Tetra &tet = m.tetra(e);
        Point3 p[4];
        for (int v = 0; v < Tetra::num_vertices(); v++)
            p[v] = m.vertex(tet.vertex(v)).coord();
        double vol = volume(p[0], p[1], p[2], p[3]);
        Point3 centre = (p[0] + p[1] + p[2] + p[3]) * 0.25;
        // the gradients of the barycentric coordinates
        Point3 g[4];
        for (int v = 0; v < 4; v++) {
            const Point3 &a0 = p[(v + 1) % 4], &a1 = p[(v + 2) % 4], &a2 = p[(v + 3) % 4];
            Point3 n = (a1 - a0).cross(a2 - a0);
            double s = n.dot(p[v] - a0);
            g[v] = n * (s != 0 ? 1.0 / s : 0.0);
        }
        for (int v = 0; v < 4; v++) {
            for (int w = 0; w < 4; w++)
                a.add(tet.vertex(v), tet.vertex(w), vol * (g[v].dot(g[w]) + (v == w ? 0.1 : 0.05)));
            rhs[tet.vertex(v)] += 0.25 * vol * source(centre, t);
        }
    }
}

class CGSolver {
  public:
    explicit CGSolver(int iterations) : iterations_(iterations) {}
    double solve(const CSRMatrix &a, const Vector &b, Vector &x) const;

  private:
    static double dot(const Vector &u, const Vector &v);
    int iterations_;
};

double CGSolver::dot(const Vector &u, const Vector &v)
{
    double local = 0, global = 0;
    for (int i = 0; i < u.size(); i++)
        local += u[i] * v[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

double CGSolver::solve(const CSRMatrix &a, const Vector &b, Vector &x) const
{
    int n = b.size();
    Vector r(n), p(n), q(n);
    a.multiply(x, q);
    for (int i = 0; i < n; i++)
        p[i] = r[i] = b[i] - q[i];
    double rr = dot(r, r);
    for (int it = 0; it < iterations_ && rr > 1e-30; it++) {
        a.multiply(p, q);
        double alpha = rr / dot(p, q);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rr_new = dot(r, r);
        for (int i = 0; i < n; i++)
            p[i] = r[i] + rr_new / rr * p[i];
        rr = rr_new;
    }
    return std::sqrt(rr);
}

// ---- output: rank 0 writes everything, line by line -------------------------
class VTKWriter {
  public:
    VTKWriter(int rank, int size, bool use_endl) : rank_(rank), size_(size), endl_(use_endl) {}
    void write_solution(const Mesh &m, const Vector &u, const Vector &f, int step);

  private:
    int rank_, size_;
    bool endl_;
};

void VTKWriter::write_solution(const Mesh &m, const Vector &u, const Vector &f, int step)
{
    int n = u.size();
    std::vector<double> all(rank_ == 0 ? 2 * (size_t)n * size_ : 1);
    std::vector<double> mine(2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        mine[i] = u[i];
        mine[n + i] = f[i];
    }
    MPI_Gather(mine.data(), 2 * n, MPI_DOUBLE, all.data(), 2 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank_ != 0)
        return;
    std::ofstream out("drops_mini_solution.vtk");
    out << "# vtk DataFile Version 3.0\nstep " << step << "\nASCII\nPOINT_DATA " << n * size_ << "\n";
    for (int field = 0; field < 2; field++) {
        out << "SCALARS " << (field == 0 ? "u" : "f") << " double\nLOOKUP_TABLE default\n";
        for (int r = 0; r < size_; r++)
            for (int i = 0; i < n; i++) {
                out << r * n + m.vertex(i).index() << ' ' << all[(size_t)(2 * r + field) * n + i];
                if (endl_)
                    out << std::endl;   // a flush, so a write(), per line
                else
                    out << '\n';
            }
    }
}

// ---- the time loop ----------------------------------------------------------
class TimeStepper {
  public:
    TimeStepper(int cells, int rank, int size, bool use_endl)
        : mesh_(cells, rank), a_(mesh_), rhs_(mesh_.num_vertices()), u_(mesh_.num_vertices()), cg_(8),
          writer_(rank, size, use_endl)
    {
    }
    double run(int steps);

  private:
    double check_energy() const;
    Mesh mesh_;
    CSRMatrix a_;
    Vector rhs_, u_;
    Assembler assembler_;
    CGSolver cg_;
    VTKWriter writer_;
};

double TimeStepper::check_energy() const
{
    double local = 0, global = 0;
    for (int i = 0; i < u_.size(); i++)
        local += u_[i] * u_[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

double TimeStepper::run(int steps)
{
    double energy = 0;
    for (int s = 0; s < steps; s++) {
        assembler_.assemble(mesh_, 0.1 * s, a_, rhs_);
        cg_.solve(a_, rhs_, u_);
        writer_.write_solution(mesh_, u_, rhs_, s);
        energy = check_energy();
    }
    return energy;
}

} // namespace mini

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? std::atoi(argv[1]) : 20;
    int cells = argc > 2 ? std::atoi(argv[2]) : 16;
    bool use_endl = !(argc > 3 && std::strcmp(argv[3], "newline") == 0);
    if (steps < 1 || cells < 1) {
        if (rank == 0)
            std::fprintf(stderr, "usage: drops_mini [STEPS [CELLS [endl|newline]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double energy;
    {
        mini::TimeStepper stepper(cells, rank, size, use_endl);
        energy = stepper.run(steps);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        std::printf("drops_mini: %d ranks, %d steps, %d cells, energy %.6e, time %.6f s\n", size, steps, cells,
                    energy, t);
    MPI_Finalize();
    return 0;
}
