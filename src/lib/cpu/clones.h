/* clones.h — the CPU backend's hot loops are compiled twice, for x86-64-v3
 * (AVX2 + FMA, chosen at load time by CPU features) and the baseline, whose
 * fma() is done in software: correct, but slower. */
#ifndef GQ_CPU_CLONES_H
#define GQ_CPU_CLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GQ_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GQ_CLONES
#endif

#endif
