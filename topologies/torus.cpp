#include "topologies/torus.hpp"

#include "sim/core/diagnostics.hpp"

namespace clustersim {

namespace {
std::size_t at(std::int64_t i) {
  return static_cast<std::size_t>(i);
}
}  // namespace

std::unique_ptr<Torus> Torus::build(const TorusSpec& spec, TopologyBuilder& builder) {
  std::unique_ptr<Torus> t(new Torus());
  t->dims_ = spec.dims;
  t->wrap_ = spec.wrap;
  const int nd = static_cast<int>(spec.dims.size());
  int stride = 1;
  for (int k : spec.dims) {
    t->stride_.push_back(stride);
    stride *= k;
  }
  const int chips = stride;
  CS_ASSERT(chips == builder.partial().device_count(), "torus dims were validated against the device count");
  t->plus_link_.assign(at(static_cast<std::int64_t>(chips) * nd), -1);
  for (int c = 0; c < chips; ++c) {
    for (int d = 0; d < nd; ++d) {
      const int k = spec.dims[at(d)], s = t->stride_[at(d)];
      const int x = (c / s) % k;
      int next = -1;
      if (x + 1 < k) {
        next = c + s;
      } else if (spec.wrap && k > 2) {
        next = c - (k - 1) * s;
      }
      if (next < 0) continue;
      const bool optical = spec.cube > 0 && (x + 1) % spec.cube == 0;
      t->plus_link_[at(static_cast<std::int64_t>(c) * nd + d)] =
          builder.add_link(c, next, optical ? LinkKind::torus_optical : LinkKind::torus, spec.link);
    }
  }
  return t;
}

void Torus::append_route(std::int32_t src, std::int32_t dst, std::uint64_t hash, Route& out) const {
  const int nd = static_cast<int>(dims_.size());
  int cur = src;
  for (int d = 0; d < nd; ++d) {
    const int k = dims_[at(d)], s = stride_[at(d)];
    const int xs = (cur / s) % k, xd = (dst / s) % k;
    if (xs == xd) continue;
    const int fwd = ((xd - xs) % k + k) % k;  // hops going +
    const int bwd = k - fwd;                  // hops going -
    bool plus = xd > xs;
    int hops = plus ? xd - xs : xs - xd;
    if (wrap_ && k > 2) {
      plus = fwd < bwd || (fwd == bwd && ((hash >> d) & 1U) == 0U);
      hops = plus ? fwd : bwd;
    }
    int x = xs;
    for (int h = 0; h < hops; ++h) {
      if (plus) {
        out.push_back({plus_link_[at(static_cast<std::int64_t>(cur) * nd + d)], true});
        cur = x + 1 < k ? cur + s : cur - (k - 1) * s;
        x = x + 1 < k ? x + 1 : 0;
      } else {
        const int prev = x > 0 ? cur - s : cur + (k - 1) * s;
        out.push_back({plus_link_[at(static_cast<std::int64_t>(prev) * nd + d)], false});
        cur = prev;
        x = x > 0 ? x - 1 : k - 1;
      }
    }
  }
  CS_ASSERT(cur == dst, "dimension-order routing reaches the destination");
}

}  // namespace clustersim
