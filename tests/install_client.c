/* install_client.c — a program that knows gpuquad only through the installed
 * header and pkg-config (tests/install.sh builds it with -std=c99 -Wall
 * -Wextra -Werror -Werror=implicit-function-declaration): it streams a text
 * file through gq_stats_stream and two raw buffers in memory through
 * gq_dot_stream, which needs the reader functions to be public. */
#include <gpuquad.h>
#include <stdio.h>

static int fail(const char *what, const char *msg)
{
  fprintf(stderr, "install_client: %s: %s\n", what, msg);
  return 1;
}

int main(int argc, char **argv)
{
  static const double a[] = {1.0, 2.0, 3.0}, b[] = {4.0, 5.0, 6.0};
  const gq_reader_opts raw = {.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_F64};
  char msg[256];
  gq_reader *file, *ra, *rb;
  gq_stats_acc stats;
  gq_stats_result s;
  gq_sum_acc sum;
  gq_stream_info info;
  double dot;
  gq_context *ctx;

  if (argc != 2)
    return fail("usage", "install_client FILE");
  ctx = gq_context_create(GQ_DEVICE_AUTO);
  if (!ctx)
    return fail("context", gq_last_error());

  if (gq_reader_open(argv[1], NULL, &file, msg, sizeof msg) != GQ_SUCCESS)
    return fail("open", msg);
  gq_stats_acc_init(&stats);
  if (gq_stats_stream(ctx, file, &stats, &info) != GQ_SUCCESS ||
      gq_stats_finish(&stats, GQ_NAN_PROPAGATE, &s) != GQ_SUCCESS)
    return fail("stats", gq_last_error());
  printf("stats %s: n %llu sum %.17g mean %.17g format %d\n", gq_reader_name(file),
         (unsigned long long)s.n, s.sum, s.mean, (int)gq_reader_format(file));
  gq_reader_close(file);

  if (gq_reader_open_mem(a, sizeof a, "a", &raw, &ra, msg, sizeof msg) != GQ_SUCCESS ||
      gq_reader_open_mem(b, sizeof b, "b", &raw, &rb, msg, sizeof msg) != GQ_SUCCESS)
    return fail("open_mem", msg);
  gq_sum_acc_init(&sum);
  if (gq_dot_stream(ctx, ra, rb, &sum, NULL) != GQ_SUCCESS ||
      gq_sum_finish(&sum, GQ_NAN_PROPAGATE, &dot) != GQ_SUCCESS)
    return fail("dot", gq_last_error());
  printf("dot %.17g of %lld elements\n", dot, (long long)gq_reader_length(ra));
  gq_reader_close(ra);
  gq_reader_close(rb);

  /* a NULL reader is a status and a message, not a crash */
  printf("null reader: %s (%s)\n", gq_strerror(gq_sum_stream(ctx, NULL, &sum, NULL)), gq_last_error());
  gq_context_free(ctx);
  return 0;
}
