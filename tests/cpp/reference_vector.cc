// Float64 references for the vector, matrix and random families (see the
// header). Plain loops, one term after another.
#include "reference_vector.h"

#include <cmath>

namespace ag::reference {

double dot(const float* a, const float* b, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

double dot_abs(const float* a, const float* b, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; ++i) s += std::fabs(static_cast<double>(a[i]) * b[i]);
  return s;
}

double squared_norm(const float* a, int32_t n) { return dot(a, a, n); }

double norm(const float* a, int32_t n) { return std::sqrt(squared_norm(a, n)); }

std::vector<double> normalize(const float* a, int32_t n) {
  const double r = norm(a, n);
  std::vector<double> out(n);
  for (int32_t i = 0; i < n; ++i) out[i] = a[i] / r;
  return out;
}

double cosine(const float* a, const float* b, int32_t n) { return dot(a, b, n) / (norm(a, n) * norm(b, n)); }

double angle(const float* a, const float* b, int32_t n) {
  const double ra = norm(a, n), rb = norm(b, n);
  double d2 = 0.0, s2 = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const double x = a[i] / ra, y = b[i] / rb;
    d2 += (x - y) * (x - y);
    s2 += (x + y) * (x + y);
  }
  return 2.0 * std::atan2(std::sqrt(d2), std::sqrt(s2));
}

double scalar_projection(const float* a, const float* b, int32_t n) { return dot(a, b, n) / norm(b, n); }

std::vector<double> vector_projection(const float* a, const float* b, int32_t n) {
  const double c = dot(a, b, n) / squared_norm(b, n);
  std::vector<double> out(n);
  for (int32_t i = 0; i < n; ++i) out[i] = c * b[i];
  return out;
}

double squared_distance(const float* a, const float* b, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(a[i]) - b[i];  // exact in double
    s += t * t;
  }
  return s;
}

std::vector<double> weighted_sum(const float* alpha, const float* V, int32_t T, int32_t d,
                                 std::vector<double>* abs_out) {
  std::vector<double> y(d, 0.0), y_abs(d, 0.0);
  for (int32_t j = 0; j < T; ++j) {
    for (int32_t c = 0; c < d; ++c) {
      const double t = static_cast<double>(alpha[j]) * V[static_cast<size_t>(j) * d + c];
      y[c] += t;
      y_abs[c] += std::fabs(t);
    }
  }
  if (abs_out != nullptr) *abs_out = y_abs;
  return y;
}

std::vector<double> matmul(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                           std::vector<double>* abs_out) {
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0), C_abs(C.size(), 0.0);
  for (int32_t i = 0; i < M; ++i) {
    for (int32_t j = 0; j < N; ++j) {
      double s = 0.0, s_abs = 0.0;
      for (int32_t k = 0; k < K; ++k) {
        const double t = static_cast<double>(A[static_cast<size_t>(i) * K + k]) * B[static_cast<size_t>(k) * N + j];
        s += t;
        s_abs += std::fabs(t);
      }
      C[static_cast<size_t>(i) * N + j] = s;
      C_abs[static_cast<size_t>(i) * N + j] = s_abs;
    }
  }
  if (abs_out != nullptr) *abs_out = C_abs;
  return C;
}

std::vector<double> matmul_nt(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                              std::vector<double>* abs_out) {
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0), C_abs(C.size(), 0.0);
  for (int32_t i = 0; i < M; ++i) {
    for (int32_t j = 0; j < N; ++j) {
      C[static_cast<size_t>(i) * N + j] = dot(A + static_cast<size_t>(i) * K, B + static_cast<size_t>(j) * K, K);
      C_abs[static_cast<size_t>(i) * N + j] =
          dot_abs(A + static_cast<size_t>(i) * K, B + static_cast<size_t>(j) * K, K);
    }
  }
  if (abs_out != nullptr) *abs_out = C_abs;
  return C;
}

std::vector<double> matmul_tn(const float* A, const float* B, int32_t M, int32_t K, int32_t N,
                              std::vector<double>* abs_out) {
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0), C_abs(C.size(), 0.0);
  for (int32_t k = 0; k < K; ++k) {
    for (int32_t i = 0; i < M; ++i) {
      const double a = A[static_cast<size_t>(k) * M + i];
      for (int32_t j = 0; j < N; ++j) {
        const double t = a * B[static_cast<size_t>(k) * N + j];
        C[static_cast<size_t>(i) * N + j] += t;
        C_abs[static_cast<size_t>(i) * N + j] += std::fabs(t);
      }
    }
  }
  if (abs_out != nullptr) *abs_out = C_abs;
  return C;
}

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  const uint64_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = m0 * ctr[0], p1 = m1 * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + 0x9E3779B9u, key[1] + 0xBB67AE85u};
  }
  return ctr;
}

}  // namespace ag::reference
