/* t_numparse.c — how the command line reads counts and reals. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "../src/cli/numparse.h"
#include "tap.h"

static void count_ok(const char *text, uint64_t want)
{
  uint64_t got = 0;
  char err[128] = "";
  const int rc = gq_parse_count(text, UINT64_C(1) << 53, &got, err, sizeof err);
  tap_ok(rc == 0 && got == want, "count '%s' = %llu (got %llu%s%s)", text, (unsigned long long)want,
         (unsigned long long)got, rc ? ", error: " : "", rc ? err : "");
}

static void count_bad(const char *text, const char *why)
{
  uint64_t got = 12345;
  char err[128] = "";
  const int rc = gq_parse_count(text, UINT64_C(1) << 53, &got, err, sizeof err);
  tap_ok(rc == -1 && strstr(err, why) && got == 12345, "count '%s' refused: '%s' (got '%s')", text, why,
         err);
}

static void whole_ok(const char *text, uint64_t min, uint64_t max, uint64_t want)
{
  uint64_t got = 12345;
  char err[128] = "";
  const int rc = gq_parse_whole(text, min, max, &got, err, sizeof err);
  tap_ok(rc == 0 && got == want, "whole '%s' in [%llu, %llu] = %llu (got %llu%s%s)", text, (unsigned long long)min,
         (unsigned long long)max, (unsigned long long)want, (unsigned long long)got, rc ? ", error: " : "",
         rc ? err : "");
}

static void whole_bad(const char *text, uint64_t min, uint64_t max, const char *why)
{
  uint64_t got = 12345;
  char err[128] = "";
  const int rc = gq_parse_whole(text, min, max, &got, err, sizeof err);
  tap_ok(rc == -1 && strstr(err, why) && got == 12345, "whole '%s' in [%llu, %llu] refused: '%s' (got '%s')", text,
         (unsigned long long)min, (unsigned long long)max, why, err);
}

static void real_ok(const char *text, double want)
{
  double got = NAN;
  char err[128] = "";
  const int rc = gq_parse_real(text, &got, err, sizeof err);
  tap_ok(rc == 0 && got == want, "real '%s' = %.17g (got %.17g)", text, want, got);
}

static void real_bad(const char *text, const char *why)
{
  double got = 7.0;
  char err[128] = "";
  const int rc = gq_parse_real(text, &got, err, sizeof err);
  tap_ok(rc == -1 && strstr(err, why) && got == 7.0, "real '%s' refused: '%s' (got '%s')", text, why, err);
}

int main(void)
{
  count_ok("1", 1);
  count_ok("1000000000", 1000000000);
  count_ok("1e9", 1000000000);
  count_ok("1E9", 1000000000);
  count_ok("1.5e9", 1500000000);
  count_ok("2.5e1", 25);
  count_ok("2^30", UINT64_C(1) << 30);
  count_ok("10^9", 1000000000);
  count_ok("2^53", UINT64_C(1) << 53);
  count_ok("1G", 1000000000);
  count_ok("1.5G", 1500000000);
  count_ok("3k", 3000);
  count_ok("4M", 4000000);
  count_ok("1Gi", UINT64_C(1) << 30);
  count_ok("1.5Ki", 1536);
  count_ok("1_000_000", 1000000);
  count_ok("+7", 7);
  count_ok("9007199254740991", UINT64_C(9007199254740991));
  count_ok("100e-2", 1);

  count_bad("abc", "not a number");
  count_bad("", "empty");
  count_bad("0", "positive");
  count_bad("-5", "positive");
  count_bad("1.5", "not a whole number");
  count_bad("1e-3", "not a whole number");
  count_bad("1e30", "too large");
  count_bad("2^54", "too large");
  count_bad("9007199254740993", "too large");
  count_bad("99999999999999999999999999999999999", "too large");
  count_bad("1e99999999", "too large");
  count_bad("5x", "not a number");
  count_bad("1e", "not a number");
  count_bad("2^", "not a number");
  count_bad("1__0", "not a number");
  count_bad("nan", "not a number");
  count_bad("inf", "not a number");
  count_bad("0x10", "not a number");
  count_bad(" ", "not a number");

  /* Overflow is "too large" at every step of the grammar, never a wrapped
   * value (2^99 squared once read as 2^56; 2^64 squared as 0). */
  count_bad("633825300114114700748620038144^2", "too large");
  count_bad("18446744073709551616^2", "too large");
  count_bad("18446744073709551616^1", "too large");
  count_bad("4294967296^2", "too large");
  count_bad("2^64", "too large");
  count_bad("2^99999999999999999999999", "too large");
  count_bad("10^20", "too large");
  count_bad("18446744073709551616", "too large");
  count_bad("340282366920938463463374607431768211456", "too large"); /* 2^128 */
  count_bad("1e19Pi", "too large");
  count_bad("16384Pi", "too large");
  count_bad("1e20", "too large");
  count_bad("100000000000000000000e-1", "too large");
  count_bad("1e9999999999999999999999", "too large");
  count_bad("99999999999999999999P", "too large");
  count_bad("-1e30", "positive");
  count_bad("-2^70", "positive");
  count_bad("-1.5", "positive");
  count_bad("0^5", "positive");
  count_bad("0e99999", "positive");
  count_bad("0.0", "positive");
  count_ok("1^99999999999999999999999", 1);
  count_ok("7^0", 1);
  count_ok("0002^0010", 1024);
  count_ok("1_0^1_0", UINT64_C(10000000000));
  count_ok("3^33", UINT64_C(5559060566555523));
  count_ok("1000000000000000000000000000000000000000000000e-40", 100000); /* 10^45 * 10^-40 */
  count_ok("0.000000000000000000000000000000000000000000001e45", 1);
  count_ok("1.5Ki", 1536);
  count_ok("0.5Ki", 512);
  count_ok("0.0009765625Mi", 1024);
  count_ok("8P", UINT64_C(8000000000000000));
  count_ok("2e3k", 2000000);
  count_ok("1.", 1);
  count_ok(".5e1", 5);
  count_bad("0.1Ki", "not a whole number");
  count_bad("1e-99999999999", "not a whole number");
  count_bad("1.00000000000000000000000000000000000000000000001", "not a number (more than 38");
  /* Strict: no spaces, hex, octal reading, stray signs or separators. */
  count_bad(" 5", "not a number");
  count_bad("5 ", "not a number");
  count_bad("\t5", "not a number");
  count_bad("0x10", "not a number");
  count_bad("0X1p4", "not a number");
  count_bad("0b101", "not a number");
  count_bad("_1", "not a number");
  count_bad("1_", "not a number");
  count_bad("1e1.5", "not a number");
  count_bad("2^-1", "BASE^EXPONENT");
  count_bad("2^3^2", "BASE^EXPONENT");
  count_bad("2^+3", "BASE^EXPONENT");
  count_bad("2.0^2", "not a number");
  count_bad("2^10k", "BASE^EXPONENT");
  count_bad("1kk", "not a number");
  count_bad("1ki", "not a number");
  count_bad("1e+", "not a number");
  count_bad("++1", "not a number");
  count_bad("+-1", "not a number");
  count_bad("-", "not a number");
  count_bad("+", "not a number");
  count_bad(".", "not a number");
  count_bad("1,000", "not a number");
  count_bad("\xef\xbc\x91", "not a number"); /* a fullwidth digit one */
  count_ok("010", 10);
  count_ok("08", 8);

  /* Seeds, offsets and the like: the same grammar from 0 to 2^64 - 1. */
  const uint64_t all = UINT64_MAX;
  whole_ok("0", 0, all, 0);
  whole_ok("-0", 0, all, 0);
  whole_ok("010", 0, all, 10);
  whole_ok("18446744073709551615", 0, all, UINT64_MAX);
  whole_ok("18_446_744_073_709_551_615", 0, all, UINT64_MAX);
  whole_ok("2^63", 0, all, UINT64_C(1) << 63);
  whole_ok("16Pi", 0, all, UINT64_C(1) << 54);
  whole_ok("1.8446744073709551615e19", 0, all, UINT64_MAX);
  whole_bad("18446744073709551616", 0, all, "too large (at most 18446744073709551615)");
  whole_bad("99999999999999999999999", 0, all, "too large");
  whole_bad("2^64", 0, all, "too large");
  whole_bad("16384Pi", 0, all, "too large");
  whole_bad("1.8446744073709551616e19", 0, all, "too large");
  whole_bad("0x10", 0, all, "not a number");
  whole_bad("-1", 0, all, "must not be negative");
  whole_bad("-1e30", 0, all, "must not be negative");
  whole_bad("0", 1, 16, "must be positive");
  whole_bad("17", 1, 16, "too large (at most 16)");
  whole_bad("1", 2, 16, "must be at least 2");
  whole_ok("2^4", 1, 16, 16);

  real_ok("0", 0.0);
  real_ok("-1.25", -1.25);
  real_ok("1e-3", 1e-3);
  real_ok("pi", 3.14159265358979323846);
  real_ok("-pi", -3.14159265358979323846);
  real_ok("e", 2.71828182845904523536);
  real_ok("1e-310", 1e-310);
  real_bad("nan", "NaN");
  real_bad("NAN", "NaN");
  real_bad("inf", "finite");
  real_bad("-inf", "finite");
  real_bad("1e999", "too large");
  real_bad("", "empty");
  real_bad("1.0x", "not a number");
  real_bad("abc", "not a number");
  real_ok("+pi", 3.14159265358979323846);
  real_ok("-e", -2.71828182845904523536);
  real_ok("5.", 5.0);
  real_ok(".5", 0.5);
  real_ok("-.5e-3", -0.5e-3);
  real_ok("1.7976931348623157e308", 1.7976931348623157e308);
  real_ok("-1.7976931348623157e308", -1.7976931348623157e308);
  real_ok("4.9406564584124654e-324", 4.9406564584124654e-324);
  real_ok("1e-400", 0.0);
  real_ok("0.1", 0.1);
  real_ok("010", 10.0);
  real_bad("1.7976931348623159e308", "too large");
  real_bad("-1e999", "too large");
  real_bad("1e99999999999999999999", "too large");
  real_bad("Infinity", "finite");
  real_bad("-INF", "finite");
  real_bad("nan(0x1)", "not a number");
  real_bad("0x10", "not a number");
  real_bad("0x1p3", "not a number");
  real_bad(" 1", "not a number");
  real_bad("1 ", "not a number");
  real_bad("1e", "not a number");
  real_bad("1e+", "not a number");
  real_bad(".", "not a number");
  real_bad("-", "not a number");
  real_bad("--1", "not a number");
  real_bad("pi2", "not a number");
  real_bad("PI", "not a number");
  real_bad("2pi", "not a number");
  real_bad("1_000", "not a number");
  real_bad("1,5", "not a number");
  real_bad("e1", "not a number");
  return tap_done();
}
