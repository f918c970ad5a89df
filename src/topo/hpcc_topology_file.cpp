// HPCC topology file reader (see hpcc_topology_file.h). HPCC itself reads the file
// as a stream of tokens; this reader is line-aware only so that every error can
// name its line, and it is stricter (counts must match exactly) because a
// mismatch almost always means a truncated or hand-edited file.
#include "topo/hpcc_topology_file.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/units.h"

namespace rocesim {
namespace {

struct Line {
  int number;  // 1-based
  std::vector<std::string_view> tokens;
};

std::vector<Line> Tokenize(std::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  while (!text.empty() || number == 0) {
    ++number;
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    Line out{number, {}};
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      if (j > i) out.tokens.push_back(line.substr(i, j - i));
      i = j;
    }
    if (!out.tokens.empty()) lines.push_back(std::move(out));
    if (eol == std::string_view::npos) break;
  }
  return lines;
}

class Parser {
 public:
  explicit Parser(const std::string& name) : name_(name) {}

  HpccTopology Parse(std::string_view text) {
    const std::vector<Line> lines = Tokenize(text);
    size_t next = 0;
    if (lines.empty()) Fail(1, "empty file; expected \"<nodes> <switches> <links>\" on line 1");

    const Line& header = lines[next++];
    if (header.tokens.size() != 3) {
      Fail(header.number, fmt::format("expected \"<nodes> <switches> <links>\", got {} fields",
                                      header.tokens.size()));
    }
    HpccTopology topo;
    topo.nodes = Int(header, 0, "node count", 1);
    const int switches = Int(header, 1, "switch count", 0);
    const int links = Int(header, 2, "link count", 0);
    if (switches > topo.nodes) {
      Fail(header.number,
           fmt::format("switch count {} exceeds node count {}", switches, topo.nodes));
    }
    topo.is_switch.assign(topo.nodes, false);

    // Switch ids: normally all on line 2, but allowed to wrap.
    while (static_cast<int>(topo.switch_ids.size()) < switches) {
      if (next == lines.size()) {
        Fail(header.number + 1,
             fmt::format("expected {} switch ids, found {}", switches, topo.switch_ids.size()));
      }
      const Line& line = lines[next++];
      for (size_t i = 0; i < line.tokens.size(); ++i) {
        if (static_cast<int>(topo.switch_ids.size()) == switches) {
          Fail(line.number, fmt::format("more switch ids than the {} declared", switches));
        }
        const int id = Int(line, i, "switch id", 0);
        CheckNode(line, id, topo.nodes, "switch id");
        if (topo.is_switch[id]) Fail(line.number, fmt::format("switch id {} listed twice", id));
        topo.is_switch[id] = true;
        topo.switch_ids.push_back(id);
      }
    }

    for (; next < lines.size(); ++next) {
      const Line& line = lines[next];
      if (static_cast<int>(topo.links.size()) == links) {
        Fail(line.number, fmt::format("more link lines than the {} declared", links));
      }
      if (line.tokens.size() != 5) {
        Fail(line.number,
             fmt::format("expected \"<a> <b> <rate> <delay> <error rate>\", got {} fields",
                         line.tokens.size()));
      }
      HpccTopology::Link link;
      link.a = Int(line, 0, "node id", 0);
      link.b = Int(line, 1, "node id", 0);
      CheckNode(line, link.a, topo.nodes, "node id");
      CheckNode(line, link.b, topo.nodes, "node id");
      if (link.a == link.b) Fail(line.number, fmt::format("link from node {} to itself", link.a));
      try {
        link.rate_bps = ParseRate(line.tokens[2]);
        link.delay = ParseTime(line.tokens[3]);
      } catch (const UnitError& e) {
        Fail(line.number, e.what());
      }
      link.error_rate = ErrorRate(line);
      topo.links.push_back(link);
    }
    if (static_cast<int>(topo.links.size()) < links) {
      const int last = lines.back().number;
      Fail(last, fmt::format("the file declares {} links but has only {} link lines", links,
                             topo.links.size()));
    }
    // Every node needs a link (a host exactly one), so more nodes than link
    // ends is a wrong header, refused before the fabric's per-node arrays
    // are built (a node count of 2e9 took gigabytes and minutes).
    if (topo.nodes > 2 * static_cast<int64_t>(links)) {
      Fail(header.number, fmt::format("{} nodes but {} links: at most {} nodes can have a link "
                                      "(each host needs one)",
                                      topo.nodes, links, 2 * static_cast<int64_t>(links)));
    }
    return topo;
  }

 private:
  [[noreturn]] void Fail(int line, std::string_view msg) const {
    throw TopologyFileError(fmt::format("{}:{}: {}", name_, line, msg));
  }

  int Int(const Line& line, size_t index, std::string_view what, int min) const {
    const std::string_view tok = line.tokens[index];
    int v = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || ptr != tok.data() + tok.size() || v < min) {
      Fail(line.number, fmt::format("expected {} (an integer >= {}), got \"{}\"", what, min, tok));
    }
    return v;
  }

  void CheckNode(const Line& line, int id, int nodes, std::string_view what) const {
    if (id >= nodes) {
      Fail(line.number, fmt::format("{} {} out of range: the file declares {} nodes (0-{})", what,
                                    id, nodes, nodes - 1));
    }
  }

  double ErrorRate(const Line& line) const {
    const std::string_view tok = line.tokens[4];
    double v = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || ptr != tok.data() + tok.size() || !(v >= 0 && v <= 1)) {
      Fail(line.number,
           fmt::format("expected an error rate from 0 to 1 like \"0.000000\", got \"{}\"", tok));
    }
    return v;
  }

  const std::string& name_;
};

}  // namespace

HpccTopology ParseHpccTopology(std::string_view text, const std::string& display_name) {
  return Parser(display_name).Parse(text);
}

HpccTopology ReadHpccTopologyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw TopologyFileError(
        fmt::format("cannot open topology file '{}': {}", path, std::strerror(errno)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  return ParseHpccTopology(contents.str(), path);
}

}  // namespace rocesim
