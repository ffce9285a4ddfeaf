/*
 * remapping_spec.h - the remapping specification hprof puts in every
 * profile (member remapping.spec), so that cubelib's `cube_remap2 -d`
 * derives Scalasca's metric hierarchy from hprof's metrics: execution,
 * comp and mpi with its management, synchronization, communication, file
 * I/O and request handling parts, bytes by kind, visits. Its source is
 * report/profile/remapping.spec (CubePL), embedded at build time.
 */
#ifndef HPROF_REMAPPING_SPEC_H
#define HPROF_REMAPPING_SPEC_H

#define REMAPPING_SPEC_MEMBER "remapping.spec"

extern const char hprof_remapping_spec[];

#endif
