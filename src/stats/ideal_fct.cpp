#include "stats/ideal_fct.h"

#include <algorithm>

namespace rocesim {

IdealTimes IdealFlowTimes(const IdealFctInput& in) {
  auto ser = [&](int64_t frame, const Hop& h) {
    return SerializationTime(frame + in.ifg_bytes, h.rate_bps);
  };
  // first: when the first full packet finishes on hop i; spacing: the gap
  // between full packets after hop i (the slowest hop so far).
  Time first = 0, spacing = 0, last = 0;
  const bool single = in.packets == 1;
  for (size_t i = 0; i < in.forward.size(); ++i) {
    const Hop& h = in.forward[i];
    const Time arrive_prev_first = i == 0 ? 0 : first + in.forward[i - 1].delay;
    const Time arrive_prev_last = i == 0 ? 0 : last + in.forward[i - 1].delay;
    if (!single) {
      first = arrive_prev_first + ser(in.full_frame, h);
      spacing = std::max(spacing, ser(in.full_frame, h));
    }
    if (single) {
      last = arrive_prev_last + ser(in.last_frame, h);
    } else if (i == 0) {
      // The NIC sends packets back to back: the last follows packets-1 full ones.
      last = ser(in.full_frame, h) * (in.packets - 1) + ser(in.last_frame, h);
    } else {
      // The last packet waits for the full packet ahead of it to finish here.
      const Time prev_done = first + spacing * (in.packets - 2);
      last = std::max(arrive_prev_last, prev_done) + ser(in.last_frame, h);
    }
  }
  IdealTimes out;
  out.delivered = last + in.forward.back().delay;
  out.fct = out.delivered;
  for (const Hop& h : in.reverse) out.fct += ser(in.ack_frame, h) + h.delay;
  return out;
}

}  // namespace rocesim
