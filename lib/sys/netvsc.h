/* SPDX-License-Identifier: Apache-2.0 */
/* SR-IOV VFs that accelerate a Hyper-V VM's synthetic network interface (Azure Accelerated
 * Networking). Such a VF is a ConnectX function with an RDMA device of its own (mlx5_0 beside
 * an ND VM's InfiniBand mlx5_1), but it carries the VM's frontend Ethernet: no RDMA fabric. */
#ifndef GV_SYS_NETVSC_H
#define GV_SYS_NETVSC_H

#include <stddef.h>

/* Whether the PCI function /sys/bus/pci/devices/<bdf> (bdf as sysfs names it) is such a VF: a
 * netdev of it enslaved to a netdev of the hv_netvsc driver. 1 and `why` ("VF of eth0,
 * hv_netvsc") when it is, else 0 (also when sysfs lacks the function). */
int gv_netvsc_vf(const char *root, const char *bdf, char *why, size_t cap);

#endif
