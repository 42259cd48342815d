/* One all-reduce, timed, for SimGrid's SMPI (scripts/simgrid-allreduce.py compiles it with smpicc
 * and runs it with smpirun on a platform made from configs/clusters.toml): the ranks split into
 * consecutive groups of GROUP (0: all of them) and every group sums BYTES of floats at once, as
 * Hier-AVG's groups do. Prints the slowest rank's seconds, the time the round waits for. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: allreduce_groups GROUP BYTES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int group = atoi(argv[1]) > 0 ? atoi(argv[1]) : size;
  const int floats = (int)(atol(argv[2]) / 4);
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, rank / group, rank, &comm);
  float* buffer = calloc((size_t)floats, sizeof(float));
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, buffer, floats, MPI_FLOAT, MPI_SUM, comm);
  double seconds = MPI_Wtime() - start, slowest = 0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.9g\n", slowest);
  free(buffer);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
