// templ.cpp - C++ names as long as real code has them: MPI calls from
// members of class templates with default template arguments, a member
// function template, two instantiations of one template (whose short names
// would be alike), and an MPI call from a comparator that libc's qsort
// calls (library frames between two program frames).
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace solver {
template <typename T, typename Alloc = std::allocator<T>>
struct Grid {
    std::vector<T, Alloc> cells;
    template <int Dim>
    __attribute__((noinline)) T exchange(const std::map<std::string, std::vector<T, Alloc>> &halos)
    {
        T local = static_cast<T>(cells.size() + halos.size() + Dim), sum = 0;
        MPI_Allreduce(&local, &sum, 1, sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        return sum;
    }
};

template <typename T>
struct Field {
    __attribute__((noinline)) void sync(std::vector<T> &v)
    {
        MPI_Bcast(v.data(), static_cast<int>(v.size() * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
    }
};
}  // namespace solver

static int compares;

extern "C" __attribute__((noinline)) int by_value(const void *a, const void *b)
{
    if (compares++ == 0)        // one barrier, under qsort's frames
        MPI_Barrier(MPI_COMM_WORLD);
    int x = *static_cast<const int *>(a), y = *static_cast<const int *>(b);
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    solver::Grid<double> g{std::vector<double>(16)};
    std::map<std::string, std::vector<double>> halos{{"east", {}}, {"west", {}}};
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += g.exchange<3>(halos);
    solver::Field<double> fd;
    solver::Field<float> ff;
    std::vector<double> vd(8);
    std::vector<float> vf(8);
    fd.sync(vd);
    ff.sync(vf);
    int keys[32];
    for (int i = 0; i < 32; i++)
        keys[i] = (i * 7919) % 32;
    qsort(keys, 32, sizeof keys[0], by_value);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        std::printf("templ: done %.0f %d\n", s, keys[0]);
    MPI_Finalize();
    return 0;
}
