/* Reads "NAME GROUP" lines, prints "NAME ROLE" as hprof writes it. */
#include <stdio.h>

#include "report/profile/mpi_roles.h"

int main(void)
{
    char name[128], group[64];
    while (scanf("%127s %63s", name, group) == 2)
        printf("%s %s\n", name, mpi_region_role(name, group));
    return 0;
}
