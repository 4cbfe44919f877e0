/* py_layout.c — the layout of every struct of gpuquad.h that the Python
 * module mirrors with ctypes (python/gpuquad/_structs.py), as the compiler
 * sees it: "STRUCT size BYTES" and "STRUCT.MEMBER OFFSET" lines, which
 * tests/python.sh compares with the mirrors.  A member renamed or removed in
 * the header breaks this file's build; one added or moved changes a size or
 * an offset: either way the mirror is mended before it corrupts memory. */
#include <stddef.h>
#include <stdio.h>

#include "gpuquad.h"

#define SIZE(type) printf("%s size %zu\n", #type, sizeof(type))
#define AT(type, member) printf("%s.%s %zu\n", #type, #member, offsetof(type, member))

int main(void)
{
  SIZE(gq_parse_error);
  AT(gq_parse_error, status); AT(gq_parse_error, in_param); AT(gq_parse_error, param_index);
  AT(gq_parse_error, column); AT(gq_parse_error, message);

  SIZE(gq_rule_result);
  AT(gq_rule_result, result); AT(gq_rule_result, coarse); AT(gq_rule_result, abserr);
  AT(gq_rule_result, difference); AT(gq_rule_result, n); AT(gq_rule_result, kernel_ms);
  AT(gq_rule_result, backend); AT(gq_rule_result, jit); AT(gq_rule_result, compile_ms);
  AT(gq_rule_result, nonfinite_count); AT(gq_rule_result, nonfinite_x); AT(gq_rule_result, rule);
  AT(gq_rule_result, error_formula); AT(gq_rule_result, change); AT(gq_rule_result, dims);
  AT(gq_rule_result, nodes); AT(gq_rule_result, points);

  SIZE(gq_rule_spec);
  AT(gq_rule_spec, rule); AT(gq_rule_spec, nodes);

  SIZE(gq_box);
  AT(gq_box, dims); AT(gq_box, a); AT(gq_box, b); AT(gq_box, n);

  SIZE(gq_reference);
  AT(gq_reference, value); AT(gq_reference, abserr); AT(gq_reference, l1norm); AT(gq_reference, method);
  AT(gq_reference, width);

  SIZE(gq_mc_options);
  AT(gq_mc_options, dims); AT(gq_mc_options, a); AT(gq_mc_options, b); AT(gq_mc_options, dist);
  AT(gq_mc_options, n); AT(gq_mc_options, seed); AT(gq_mc_options, precision); AT(gq_mc_options, tol);
  AT(gq_mc_options, progress); AT(gq_mc_options, progress_user); AT(gq_mc_options, blocks);

  SIZE(gq_mc_result);
  AT(gq_mc_result, mean); AT(gq_mc_result, sd); AT(gq_mc_result, se); AT(gq_mc_result, ci_low);
  AT(gq_mc_result, ci_high); AT(gq_mc_result, volume); AT(gq_mc_result, integral);
  AT(gq_mc_result, integral_se); AT(gq_mc_result, n); AT(gq_mc_result, seed);
  AT(gq_mc_result, stopped_by_tol); AT(gq_mc_result, kernel_ms); AT(gq_mc_result, backend);
  AT(gq_mc_result, jit); AT(gq_mc_result, compile_ms); AT(gq_mc_result, precision);

  SIZE(gq_mc_reference);
  AT(gq_mc_reference, value); AT(gq_mc_reference, se); AT(gq_mc_reference, chisq);
  AT(gq_mc_reference, calls); AT(gq_mc_reference, method);

  SIZE(gq_vegas_options);
  AT(gq_vegas_options, iterations); AT(gq_vegas_options, warmup); AT(gq_vegas_options, bins);
  AT(gq_vegas_options, alpha); AT(gq_vegas_options, beta);

  SIZE(gq_vegas_result);
  AT(gq_vegas_result, mc); AT(gq_vegas_result, chi2_dof); AT(gq_vegas_result, chi2_q);
  AT(gq_vegas_result, iterations); AT(gq_vegas_result, strata); AT(gq_vegas_result, bins);

  SIZE(gq_adaptive_options);
  AT(gq_adaptive_options, dims); AT(gq_adaptive_options, a); AT(gq_adaptive_options, b);
  AT(gq_adaptive_options, epsrel); AT(gq_adaptive_options, epsabs); AT(gq_adaptive_options, max_evals);
  AT(gq_adaptive_options, max_regions);

  SIZE(gq_adaptive_result);
  AT(gq_adaptive_result, estimate); AT(gq_adaptive_result, abserr); AT(gq_adaptive_result, tolerance);
  AT(gq_adaptive_result, reached); AT(gq_adaptive_result, stop); AT(gq_adaptive_result, evaluations);
  AT(gq_adaptive_result, regions); AT(gq_adaptive_result, passes); AT(gq_adaptive_result, max_held);
  AT(gq_adaptive_result, dims); AT(gq_adaptive_result, rule); AT(gq_adaptive_result, change);
  AT(gq_adaptive_result, kernel_ms); AT(gq_adaptive_result, compile_ms); AT(gq_adaptive_result, jit);
  AT(gq_adaptive_result, backend);

  SIZE(gq_sum_acc);
  AT(gq_sum_acc, n); AT(gq_sum_acc, nan_count); AT(gq_sum_acc, posinf_count); AT(gq_sum_acc, neginf_count);
  AT(gq_sum_acc, sum); AT(gq_sum_acc, sum_err); AT(gq_sum_acc, abs_sum); AT(gq_sum_acc, scale);

  SIZE(gq_rms_acc);
  AT(gq_rms_acc, n); AT(gq_rms_acc, nan_count); AT(gq_rms_acc, inf_count); AT(gq_rms_acc, sq_diff);
  AT(gq_rms_acc, sq_diff_err); AT(gq_rms_acc, sq_ref); AT(gq_rms_acc, sq_ref_err); AT(gq_rms_acc, max_abs);
  AT(gq_rms_acc, scale);

  SIZE(gq_rms_result);
  AT(gq_rms_result, rms); AT(gq_rms_result, max_abs); AT(gq_rms_result, relative); AT(gq_rms_result, n);
  AT(gq_rms_result, nan_count); AT(gq_rms_result, inf_count);

  SIZE(gq_stats_acc);
  AT(gq_stats_acc, n); AT(gq_stats_acc, nan_count); AT(gq_stats_acc, posinf_count);
  AT(gq_stats_acc, neginf_count); AT(gq_stats_acc, first_nan); AT(gq_stats_acc, first_posinf);
  AT(gq_stats_acc, first_neginf); AT(gq_stats_acc, scale); AT(gq_stats_acc, shift); AT(gq_stats_acc, s1);
  AT(gq_stats_acc, s1_err); AT(gq_stats_acc, s2); AT(gq_stats_acc, s2_err); AT(gq_stats_acc, abs_sum);
  AT(gq_stats_acc, abs_err); AT(gq_stats_acc, min); AT(gq_stats_acc, max); AT(gq_stats_acc, argmin);
  AT(gq_stats_acc, argmax);

  SIZE(gq_stats_result);
  AT(gq_stats_result, total); AT(gq_stats_result, n); AT(gq_stats_result, nan_count);
  AT(gq_stats_result, inf_count); AT(gq_stats_result, sum); AT(gq_stats_result, mean);
  AT(gq_stats_result, var_sample); AT(gq_stats_result, var_population); AT(gq_stats_result, sd_sample);
  AT(gq_stats_result, sd_population); AT(gq_stats_result, min); AT(gq_stats_result, max);
  AT(gq_stats_result, argmin); AT(gq_stats_result, argmax); AT(gq_stats_result, l1);
  AT(gq_stats_result, l2); AT(gq_stats_result, linf);
  return 0;
}
