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
  real_bad("1e999", "finite");
  real_bad("", "empty");
  real_bad("1.0x", "not a number");
  real_bad("abc", "not a number");
  return tap_done();
}
