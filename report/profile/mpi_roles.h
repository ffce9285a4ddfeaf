/*
 * mpi_roles.h - the region role Score-P gives an MPI function, so that Cube
 * readers group hprof's MPI regions as they group Score-P's.
 */
#ifndef HPROF_MPI_ROLES_H
#define HPROF_MPI_ROLES_H

/* "point2point", "barrier", "one2all", "all2one", "all2all", "other
 * collective", "rma", "atomic", "allocate", "file io", "file io metadata"
 * or "function", from the C name ("MPI_Bcast", "MPI_Ibcast_c", ...) and the
 * function list's group ("p2p", "coll", ...; NULL if unknown). */
const char *mpi_region_role(const char *name, const char *group);

#endif
