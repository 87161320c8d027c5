#include "sim/engine/flow/fluid_net.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "sim/core/diagnostics.hpp"

namespace clustersim::flow {

namespace {

int constraint_of(const FabricLayout& fabric, DirectedLink dl) {
  return fabric.links()[static_cast<std::size_t>(dl / 2)].half_duplex ? dl - dl % 2 : dl;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

FlowGroup make_flow_group(const std::vector<FlowSpec>& flows, double scale, const FabricLayout& fabric) {
  FlowGroup g;
  for (const FlowSpec& f : flows) {
    const double b = f.bytes.value() * scale;
    if (f.src != f.dst && b >= 1.0) g.flows.push_back({f.src, f.dst, Bytes(b)});
  }
  // Scratch per constraint / directed link, all zero between calls (reset below by the touched list).
  const std::size_t nc = 2 * fabric.links().size();
  static thread_local std::vector<int> count;
  static thread_local std::vector<double> bytes;
  if (count.size() < nc) count.resize(nc, 0);
  if (bytes.size() < nc) bytes.resize(nc, 0.0);
  std::vector<int> touched;
  std::vector<int> route_c;                 // constraints of every flow's route, flat
  std::vector<std::size_t> offset{0};
  for (const FlowSpec& f : g.flows) {
    const FabricRoute r = fabric.route(f.src, f.dst);
    for (DirectedLink dl : r.links) {
      const int c = constraint_of(fabric, dl);
      route_c.push_back(c);
      if (count[static_cast<std::size_t>(c)]++ == 0) touched.push_back(c);
      if (bytes[static_cast<std::size_t>(dl)] == 0.0) touched.push_back(-1 - dl);
      bytes[static_cast<std::size_t>(dl)] += f.bytes.value();
    }
    offset.push_back(route_c.size());
  }
  // Classes: equal bytes and equal solo share (the smallest link bandwidth / flows of this group on that
  // link along the route: the max-min rate the flow would get if the group ran alone). A finer key (every
  // link's share along the route) was tried: the same steps in the tests, 7x the classes at 32K GPUs.
  std::map<std::pair<double, double>, int> index;
  for (std::size_t i = 0; i < g.flows.size(); ++i) {
    double share = std::numeric_limits<double>::infinity();
    for (std::size_t k = offset[i]; k < offset[i + 1]; ++k) {
      const auto c = static_cast<std::size_t>(route_c[k]);
      share = std::min(share, fabric.links()[c / 2].bandwidth.value() / count[c]);
    }
    const auto key = std::make_pair(g.flows[i].bytes.value(), share);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int>(g.classes.size())).first;
      g.classes.emplace_back();
      g.classes.back().bytes = key.first;
    }
    FlowGroup::Class& c = g.classes[static_cast<std::size_t>(it->second)];
    c.members.push_back(static_cast<int>(i));
    ++c.flows;
  }
  for (int t : touched) {
    if (t >= 0) {
      count[static_cast<std::size_t>(t)] = 0;
    } else {
      const auto dl = static_cast<std::size_t>(-1 - t);
      g.link_bytes.emplace_back(static_cast<DirectedLink>(dl), bytes[dl]);
      bytes[dl] = 0.0;
    }
  }
  std::sort(g.link_bytes.begin(), g.link_bytes.end());
  // Each class's rows: flows of the class per constraint.
  for (FlowGroup::Class& c : g.classes) {
    std::vector<int> used;
    for (int i : c.members) {
      for (std::size_t k = offset[static_cast<std::size_t>(i)]; k < offset[static_cast<std::size_t>(i) + 1]; ++k) {
        const int con = route_c[k];
        if (count[static_cast<std::size_t>(con)]++ == 0) used.push_back(con);
      }
    }
    std::sort(used.begin(), used.end());
    c.rows.reserve(used.size());
    for (int con : used) {
      c.rows.emplace_back(con, count[static_cast<std::size_t>(con)]);
      count[static_cast<std::size_t>(con)] = 0;
    }
  }
  return g;
}

FluidNet::FluidNet(const FabricLayout& fabric) {
  const auto& links = fabric.links();
  cap_.resize(2 * links.size());
  for (std::size_t l = 0; l < links.size(); ++l) {
    cap_[2 * l] = cap_[2 * l + 1] = links[l].bandwidth.value();
  }
  bucket_of_.assign(cap_.size(), -1);
}

void FluidNet::after(double delay, Done fn) {
  const std::uint64_t s = seq_++;
  timers_.push({now_ + std::max(0.0, delay), s});
  timer_fn_.emplace(s, std::move(fn));
}

int FluidNet::find_or_create(double cap, std::vector<std::pair<int, int>> row) {
  if (row.empty()) return -1;
  std::uint64_t h = std::hash<double>{}(cap);
  for (const auto& [sl, n] : row) h = mix(mix(h, static_cast<std::uint64_t>(sl)), static_cast<std::uint64_t>(n));
  auto& ids = by_hash_[h];
  for (int b : ids) {
    const Bucket& bk = buckets_[static_cast<std::size_t>(b)];
    if (bk.cap == cap && bk.row == row) return b;
  }
  int b;
  if (!free_buckets_.empty()) {
    b = free_buckets_.back();
    free_buckets_.pop_back();
  } else {
    b = static_cast<int>(buckets_.size());
    buckets_.emplace_back();
  }
  Bucket& bk = buckets_[static_cast<std::size_t>(b)];
  bk.cap = cap;
  bk.row = std::move(row);
  bk.hash = h;
  bk.refs = 0;
  ids.push_back(b);
  return b;
}

void FluidNet::move_rows(const std::vector<std::pair<int, int>>& rows, int slot, bool add) {
  struct Key {
    int bucket, n;
    double cap;
    bool operator<(const Key& o) const {
      if (bucket != o.bucket) return bucket < o.bucket;
      if (n != o.n) return n < o.n;
      return cap < o.cap;
    }
  };
  std::map<Key, int> moved;  // (old bucket, n, capacity) -> new bucket
  std::vector<int> released;
  for (const auto& [con, n] : rows) {
    const auto c = static_cast<std::size_t>(con);
    const int ob = bucket_of_[c];
    const Key key{ob, add ? n : 0, ob < 0 ? cap_[c] : 0.0};
    auto it = moved.find(key);
    if (it == moved.end()) {
      std::vector<std::pair<int, int>> row;
      if (ob >= 0) row = buckets_[static_cast<std::size_t>(ob)].row;
      const auto pos = std::lower_bound(row.begin(), row.end(), std::make_pair(slot, 0));
      if (add) {
        row.insert(pos, {slot, n});
      } else {
        CS_ASSERT(pos != row.end() && pos->first == slot, "a class leaves the links it joined");
        row.erase(pos);
      }
      it = moved.emplace(key, find_or_create(cap_[c], std::move(row))).first;
    }
    const int nb = it->second;
    if (nb >= 0) ++buckets_[static_cast<std::size_t>(nb)].refs;
    if (ob >= 0 && --buckets_[static_cast<std::size_t>(ob)].refs == 0) released.push_back(ob);
    bucket_of_[c] = nb;
  }
  // Free emptied buckets only now: their ids are keys of `moved` until here.
  for (int b : released) {
    Bucket& bk = buckets_[static_cast<std::size_t>(b)];
    if (bk.refs != 0 || bk.row.empty()) continue;
    auto& ids = by_hash_[bk.hash];
    ids.erase(std::find(ids.begin(), ids.end(), b));
    if (ids.empty()) by_hash_.erase(bk.hash);
    bk.row.clear();
    free_buckets_.push_back(b);
  }
}

void FluidNet::start(const FlowGroup& group, std::function<void(int)> class_done) {
  auto done = std::make_shared<std::function<void(int)>>(std::move(class_done));
  for (std::size_t k = 0; k < group.classes.size(); ++k) {
    const FlowGroup::Class& c = group.classes[k];
    int s;
    if (!free_slots_.empty()) {
      s = free_slots_.back();
      free_slots_.pop_back();
    } else {
      s = static_cast<int>(slots_.size());
      slots_.emplace_back();
    }
    Slot& sl = slots_[static_cast<std::size_t>(s)];
    sl = Slot{&c, c.bytes, 0.0, static_cast<int>(k), done, true};
    ++active_;
    move_rows(c.rows, s, true);
  }
  dirty_ = true;
}

// Max-min fair per-flow rates by progressive filling over the distinct constraint rows.
void FluidNet::solve() {
  std::vector<int> live;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (buckets_[b].refs > 0) live.push_back(static_cast<int>(b));
  }
  const std::size_t nb = buckets_.size();
  std::vector<double> rem(nb, 0.0), load(nb, 0.0);
  // Per slot: the buckets it is on (CSR).
  std::vector<int> deg(slots_.size() + 1, 0);
  for (int b : live) {
    for (const auto& [s, n] : buckets_[static_cast<std::size_t>(b)].row) ++deg[static_cast<std::size_t>(s) + 1];
  }
  for (std::size_t i = 1; i < deg.size(); ++i) deg[i] += deg[i - 1];
  std::vector<std::pair<int, int>> on(static_cast<std::size_t>(deg.back()));
  std::vector<int> fill(deg.begin(), deg.end() - 1);
  for (int b : live) {
    Bucket& bk = buckets_[static_cast<std::size_t>(b)];
    rem[static_cast<std::size_t>(b)] = bk.cap;
    for (const auto& [s, n] : bk.row) {
      load[static_cast<std::size_t>(b)] += n;
      on[static_cast<std::size_t>(fill[static_cast<std::size_t>(s)]++)] = {b, n};
    }
  }
  std::vector<char> frozen(slots_.size(), 0);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (int b : live) heap.push({rem[static_cast<std::size_t>(b)] / load[static_cast<std::size_t>(b)], b});
  while (!heap.empty()) {
    const auto [share, b] = heap.top();
    heap.pop();
    const auto ub = static_cast<std::size_t>(b);
    if (load[ub] <= 0.5) continue;
    const double cur = std::max(0.0, rem[ub]) / load[ub];
    if (cur != share) continue;  // stale entry: a newer one was pushed
    for (const auto& [s, n] : buckets_[ub].row) {
      const auto us = static_cast<std::size_t>(s);
      if (frozen[us] != 0) continue;
      frozen[us] = 1;
      slots_[us].rate = share;
      for (int k = deg[us]; k < deg[us + 1]; ++k) {
        const auto [b2, n2] = on[static_cast<std::size_t>(k)];
        const auto u2 = static_cast<std::size_t>(b2);
        rem[u2] -= share * n2;
        load[u2] -= n2;
        if (u2 != ub && load[u2] > 0.5) heap.push({std::max(0.0, rem[u2]) / load[u2], b2});
      }
    }
  }
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].active && frozen[s] == 0) slots_[s].rate = std::numeric_limits<double>::infinity();
  }
}

void FluidNet::run() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<int> finished;
  while (true) {
    if (dirty_) {
      solve();
      dirty_ = false;
    }
    double t_flow = inf;
    for (const Slot& s : slots_) {
      if (!s.active) continue;
      const double t = s.rate == inf ? now_ : now_ + s.remaining / s.rate;
      t_flow = std::min(t_flow, t);
    }
    const double t_timer = timers_.empty() ? inf : timers_.top().t;
    const double t = std::min(t_flow, t_timer);
    if (t == inf) break;
    const double dt = std::max(0.0, t - now_);
    now_ = std::max(now_, t);
    finished.clear();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      if (!s.active) continue;
      if (s.rate == inf) {
        s.remaining = 0;
      } else {
        s.remaining -= s.rate * dt;
      }
      if (s.remaining <= 1e-9 * s.cls->bytes || (s.rate != inf && s.remaining / s.rate <= 1e-12)) {
        finished.push_back(static_cast<int>(i));
      }
    }
    for (int i : finished) {
      Slot& s = slots_[static_cast<std::size_t>(i)];
      move_rows(s.cls->rows, i, false);
      s.active = false;
      --active_;
      dirty_ = true;
    }
    for (int i : finished) {
      Slot& s = slots_[static_cast<std::size_t>(i)];
      auto done = std::move(s.done);
      free_slots_.push_back(i);
      (*done)(s.k);
    }
    while (!timers_.empty() && timers_.top().t <= now_) {
      const std::uint64_t seq = timers_.top().seq;
      timers_.pop();
      auto it = timer_fn_.find(seq);
      Done fn = std::move(it->second);
      timer_fn_.erase(it);
      fn();
    }
  }
  CS_ASSERT(active_ == 0, "every flow class completed");
}

}  // namespace clustersim::flow
