/* poison.h — the one poison word: what an unwritten 8-byte word holds in the
 * memory the host or a last block waits on (mapped results, the scratch of
 * the unfenced last block, kernels/engine/grid_levels.cuh).  A signalling
 * NaN: no arithmetic produces it (a NaN it makes is quiet) and no count
 * reaches it, so a word that no longer holds it has been written.  Plain C,
 * also read by nvcc and NVRTC. */
#ifndef GQ_POISON_H
#define GQ_POISON_H

#define GQ_POISON 0x7ff4dead5eed0001ULL

#endif
