// cxx.cpp - C++ call paths for lang_cxx_names.sh: a namespace, a class member
// function, a class template member and a function template calling MPI.
//   main -> ns::Solver::step() -> halo<double>::exchange() -> MPI_Sendrecv  (STEPS)
//   main -> ns::Solver::step() -> halo<int>::exchange()    -> MPI_Sendrecv  (STEPS/2)
//   main -> ns::Solver::step() -> ns::detail::reduce<double>(double) -> MPI_Allreduce (STEPS)
//   main -> ns::Solver::finish(int) -> MPI_Barrier (1)
//   main -> ns::Solver::risky(int) -> MPI_Barrier (THROWS), then a C++
//   exception thrown below risky() is caught in main: the unwinder walks
//   frames whose return addresses hprof may have redirected to thunks.
#include <mpi.h>
#include <cstdio>
#include <stdexcept>
#include <vector>

#define NOINLINE __attribute__((noinline))
enum { STEPS = 6, HALO_N = 128, THROWS = 3 };

template <typename T> struct mpi_type;
template <> struct mpi_type<double> { static MPI_Datatype get() { return MPI_DOUBLE; } };
template <> struct mpi_type<int> { static MPI_Datatype get() { return MPI_INT; } };

template <typename T>
struct halo {
    std::vector<T> out, in;
    int left, right;
    halo(int l, int r) : out(HALO_N), in(HALO_N), left(l), right(r) {}
    NOINLINE void exchange();
};

template <typename T>
NOINLINE void halo<T>::exchange()
{
    MPI_Sendrecv(out.data(), HALO_N, mpi_type<T>::get(), right, 7,
                 in.data(), HALO_N, mpi_type<T>::get(), left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

namespace ns {
namespace detail {
template <typename T>
NOINLINE T reduce(T x)
{
    T r;
    MPI_Allreduce(&x, &r, 1, mpi_type<T>::get(), MPI_SUM, MPI_COMM_WORLD);
    return r;
}
} // namespace detail

class Solver {
public:
    Solver(int l, int r) : hd(l, r), hi(l, r) {}
    NOINLINE double step(int i);
    NOINLINE void finish(int code);
    NOINLINE int risky(int i);
private:
    halo<double> hd;
    halo<int> hi;
};

NOINLINE double Solver::step(int i)
{
    hd.exchange();
    if (i % 2 == 0) hi.exchange();
    return detail::reduce<double>(1.0 * i);
}

NOINLINE void Solver::finish(int code)
{
    if (code == 0) MPI_Barrier(MPI_COMM_WORLD);
}
NOINLINE static void thrower(int i)
{
    if (i >= 0) throw std::runtime_error("cxx: expected exception");
}

NOINLINE int Solver::risky(int i)
{
    MPI_Barrier(MPI_COMM_WORLD);
    thrower(i);
    return i;
}
} // namespace ns

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    ns::Solver s((rank + np - 1) % np, (rank + 1) % np);
    double sum = 0;
    for (int i = 0; i < STEPS; i++) sum += s.step(i);
    int caught = 0;
    for (int i = 0; i < THROWS; i++) {
        try {
            s.risky(i);
        } catch (const std::runtime_error &) {
            caught++;
        }
    }
    s.finish(0);
    if (rank == 0) std::printf("cxx: done %g, caught %d\n", sum, caught);
    MPI_Finalize();
    return 0;
}
