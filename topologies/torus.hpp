// 2D/3D torus of chips with dimension-order routing (TPU v4 / v5p inter-chip interconnect).
//
// A 4x4 torus (dims [4, 4], rank = x + 4 y), wrap-around links drawn as "~":
//
//      ~    ~    ~    ~
//   ~ c0 - c1 - c2 - c3 ~        y = 0
//      |    |    |    |
//   ~ c4 - c5 - c6 - c7 ~        y = 1
//      |    |    |    |
//   ~ c8 - c9 - c10- c11~        y = 2
//      |    |    |    |
//   ~ c12- c13- c14- c15~        y = 3
//      ~    ~    ~    ~
//
// Route c1 -> c14 (x 1 -> 2, y 0 -> 3), dimension order x then y, each the shorter way round:
//   c1 -> c2 (x+, forward), c2 -> c14 (y-, the wrap link c14 -> c2 crossed backward).
// When both ways are equally long (distance k/2), bit d of the ECMP hash picks the direction, so
// all-to-all traffic uses both. Hops = sum over dimensions of the ring distance; the diameter is
// sum floor(k_i / 2) with wrap-around and sum (k_i - 1) without (Dally & Towles, Principles and
// Practices of Interconnection Networks, 2004, Sec. 5.2).
// Cubes (TPU v4: 4x4x4 blocks, Jouppi et al. ISCA 2023): a link leaving a cube face (including every
// wrap link) goes through an optical circuit switch and has kind torus_optical; links inside a cube are
// torus. A ring of 2 chips has one link (no separate wrap link); a ring of 1 has none.
// Link a end = the chip at the lower coordinate (x, for the wrap link the chip at k-1).
#pragma once

#include <vector>

#include "topologies/router.hpp"
#include "topologies/topology_builder.hpp"
#include "topologies/torus_spec.hpp"

namespace clustersim {

class Torus final : public Router {
 public:
  /// Adds the chip links to `builder` and returns the router. Precondition: spec.validate(...) is empty.
  static std::unique_ptr<Torus> build(const TorusSpec& spec, TopologyBuilder& builder);

  [[nodiscard]] RouterLevel level() const override { return RouterLevel::devices; }
  void append_route(std::int32_t src, std::int32_t dst, std::uint64_t hash, Route& out) const override;

 private:
  Torus() = default;
  std::vector<int> dims_;
  std::vector<int> stride_;
  bool wrap_ = true;
  std::vector<LinkId> plus_link_;  // chip * D + d: link from the chip to its + neighbour in d, -1 if none
};

}  // namespace clustersim
