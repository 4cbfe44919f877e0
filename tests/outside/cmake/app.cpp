// app.cpp — the installed <gpuquad.h> from C++17: the sum of squares
// 1^2 + ... + 1000^2 as a dot product on the CPU backend, n(n+1)(2n+1)/6
// exactly (every partial sum is an integer below 2^53).
#include <gpuquad.h>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

int main()
{
  std::unique_ptr<gq_context, decltype(&gq_context_free)> ctx(gq_context_create(GQ_DEVICE_CPU),
                                                              gq_context_free);
  if (!ctx) {
    std::fprintf(stderr, "app_cxx: %s\n", gq_last_error());
    return 1;
  }
  constexpr std::size_t n = 1000;
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  double dot = 0;
  if (const int status = gq_dot(ctx.get(), v.size(), v.data(), v.data(), &dot); status != GQ_SUCCESS) {
    std::fprintf(stderr, "app_cxx: %s: %s\n", gq_strerror(status), gq_last_error());
    return 1;
  }
  const double want = n * (n + 1) * (2 * n + 1) / 6.0;
  std::printf("C++17: sum of squares to %zu = %.17g: %s\n", n, dot, dot == want ? "right" : "WRONG");
  return dot == want ? 0 : 1;
}
