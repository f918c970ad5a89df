// Partitioning a fabric for a parallel run (DESIGN.md §5, sim/partitioned_run.h).
//
// A partition owns whole nodes: a switch with all its ports, a host with its
// NIC and the flows it sends. Links between nodes of different partitions are
// cut; a frame launched onto a cut link is handed to the far partition, which
// must learn of it before the frame lands, so partitions synchronise at least
// once per smallest cut-link delay (the lookahead).
//
// Generated fat trees, leaf-spines and rail fabrics are cut by pods / leaf
// groups / rail groups, with the core switches or spines spread evenly
// (equal hosts and switches per partition); which pod goes where does not
// change the cut, so pods, then core switches, are dealt heaviest first to
// the partition with the least work (sim/partition_load.h: data frames per
// node). Any other topology (HPCC files included, and a fabric with fewer
// groups or top switches than partitions) is cut by METIS (Debian's
// libmetis) on the node graph with two balance constraints, ports (a
// node's port count plus one for a host: the memory a partition holds) and
// frames (the time it runs), cutting where few frames cross (each link
// weighs one plus the data frames the workload puts on it both ways, so
// that a lightly used link is cut before a busy one).
// Links of zero delay cannot be cut (no lookahead), nor host links shorter
// than the window (below), nor links a link_down fault takes down: their
// ends are merged into one vertex before METIS sees the graph, so a
// partitioning always cuts around them; a fabric that is one such component
// cannot be split.
// GPU servers (topology.gpus_per_server G > 1) are never split: their
// intra-server transfers are modelled at the hosts. METIS sees each
// server's G hosts as one vertex; a pod or leaf cut applies only when G
// divides the hosts per pod or leaf (else METIS); and PartitionFabric
// checks the result, throwing PartitionError if a server straddles two
// partitions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct FabricLayout;
struct FabricLoad;
struct Scenario;

struct PartitionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PartitionSize {
  uint32_t switches = 0;
  uint32_t hosts = 0;
  uint64_t ports = 0;
  uint64_t load = 0;  // frame crossings the workload puts on its nodes (sim/partition_load.h)
};

struct Partitioning {
  uint32_t parts = 1;
  std::vector<uint32_t> node_part;  // per node: its partition
  // Per port: the partition of the node at its link's far end (where a frame
  // launched on it goes when the link is cut). One copy per process: every
  // partition's replica reads it (Fabric::port_partition).
  std::vector<uint32_t> far_part;
  std::vector<PartitionSize> sizes;
  uint64_t cut_links = 0;  // links whose ends lie in different partitions
  // The workload's data frames (sim/partition_load.h): every hop they make
  // (a frame sent out of a port), and the hops over cut links.
  uint64_t frame_hops = 0;
  uint64_t cut_frames = 0;
  Time lookahead = kTimeMax;  // the smallest delay of a cut link
  // "pods / leaf groups", "rail groups", "METIS" or "dealt by load" (fewer than two vertices a
  // partition), "" for one partition
  std::string by;
  // "partitions 2: 40 switches 64 hosts 384 ports | ...; cut 16 links (9.8% of the data
  // frames' hops cross them); lookahead 1 us"
  std::string Describe(Time window) const;
};

// Cuts `scenario`'s fabric, laid out as `layout`, into `parts` partitions
// (parts >= 1). Throws PartitionError when it cannot: more partitions than
// nodes that can be separated, or a partition left empty. Links that a
// link_down fault takes down are not cut (FabricLayout::UncuttablePorts).
//
// The window of the synchronisation scheme is FabricLayout::quantum: the
// shortest link between switches (SyncWindow in net/fabric_layout.h); a
// partitioning never cuts a link shorter than it, so every cut's lookahead
// is at least this long. It depends on the scenario only, which is
// what lets a serial run end after exactly the same windows as a partitioned
// one (Simulation::Advance).
//
// `load`: the workload's (EstimateFabricLoad), when the caller has it
// already; null: estimated here.
Partitioning PartitionFabric(const FabricLayout& layout, const Scenario& scenario, uint32_t parts,
                             const FabricLoad* load = nullptr);

// A note for a run whose window is the default (topology.sync_window: auto)
// while every link `cut` cuts is longer: pods on short links joined by
// longer core links. It names the longer window the scenario could set;
// empty when there is nothing to gain.
std::string WindowNote(const Partitioning& cut, Time window, const Scenario& scenario);

// How many partitions each thread runs when the user names no count
// (`--partitions` left out): 1, 2 or 4, the fewest that leave at most
// kAutoLinksPerPartition links to a partition, over `threads` threads in all
// (ranks x threads). A window touches every port of a partition, so a
// partition whose ports and queues fit a core's L2 runs its events faster,
// while each extra partition costs its own windows, cut links and memory:
// small fabrics keep one partition per thread, large ones get up to four.
// Measured on this repository's benchmarks (bench/NOTES.md, twentieth
// session): k=32 with 2 threads 35.3 s with 2 partitions, 25.1 s with 8; at
// 8 threads 16 partitions beat 8 by 16%; fat320 and k=8 run fastest with one
// per thread.
inline constexpr uint64_t kAutoLinksPerPartition = 1536;
inline constexpr uint32_t kAutoMaxPartitionsPerThread = 4;
uint32_t AutoPartitionsPerThread(uint64_t links, uint32_t threads);

// The most partitions `layout` can be cut into: its nodes, less those that
// no cut may separate (the ends of links shorter than the window and of
// links a link_down fault takes down, a GPU server's hosts).
uint32_t SeparableParts(const FabricLayout& layout, const Scenario& scenario);

// The threads each of `ranks` ranks runs for `--threads auto`: its `share`
// of the machine's cores (AutoThreadsHere), but no more than the partitions
// each rank runs (`partitions`, or 0: by the fabric's size) nor than the
// fabric's `separable_parts` (SeparableParts) give each rank, and at least
// one. So a fabric that cannot be cut runs serially on one rank, where an
// explicit `--threads T` is refused (PartitionError); every rank, with the
// same share, gets the same count.
uint32_t FitAutoThreads(uint32_t share, uint32_t ranks, uint32_t partitions,
                        uint32_t separable_parts);

// The cut of a run on `ranks` ranks of `threads` threads each: into ranks x
// `per_rank` partitions (per_rank >= threads), or, with per_rank 0, into
// ranks x threads x AutoPartitionsPerThread, falling back to fewer (down to
// one per thread) when the fabric cannot be cut that finely (zero-delay
// links, GPU servers). Every rank reaches the same cut. `load`: the
// workload's, estimated already (null: estimated here).
Partitioning PartitionForRun(const FabricLayout& layout, const Scenario& scenario, uint32_t ranks,
                             uint32_t threads, uint32_t per_rank, const FabricLoad* load = nullptr);

}  // namespace rocesim
