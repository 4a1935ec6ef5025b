#pragma once

// The input path the window aggregations over Flink state and timers share, whose rows go into
// slices (SliceWindowOperator, the window TVFs) or panes (GroupWindowOperator, the legacy group
// windows) of a WindowAggregate.

#include <cstdint>
#include <utility>
#include <vector>

#include "streamfusion/common/status.h"
#include "streamfusion/operators/operator.h"
#include "streamfusion/operators/window/window_aggregate.h"
#include "streamfusion/operators/window/window_map_port.h"
#include "streamfusion/state/state_port.h"

namespace streamfusion::operators {

// Prepares `input` in `agg` at `watermark` (event time) or, on processing time, at its last row's
// arrival (the shell flushes the island when a new slice or pane begins, so a batch's rows share
// it); adds its late rows to `*dropped`; then, unless every row was late, starts a port batch that
// reads each group's accumulator (state `acc_state`, namespace `ns(g)` of group g, the read's index
// in `*acc_reads`) and the map entries its DISTINCT and MIN/MAX lookups need. Returns whether it
// did (the operator then waits for the answers).
template <typename Namespace>
Result<bool> ReadWindowInput(Batch input, int64_t watermark, WindowAggregate* agg,
                             state::StatePort* port, WindowMapPort* maps, int32_t acc_state,
                             std::vector<int32_t>* acc_reads, int64_t* dropped, Namespace ns) {
  const int64_t rows = input.rows->num_rows();
  if (rows == 0) return false;
  int64_t time = watermark;
  if (!agg->event_time()) {
    const int64_t last = input.identity ? rows - 1 : input.source_rows.back();
    if (input.times == nullptr || last < 0 || static_cast<size_t>(last) >= input.times->size()) {
      return InternalError("A processing-time window without row times");
    }
    time = (*input.times)[static_cast<size_t>(last)];
  }
  SF_RETURN_NOT_OK(agg->PrepareBatch(std::move(input.rows), time));
  *dropped += agg->dropped();
  // Every row late: nothing to combine (Combine has not run, its results are the last batch's).
  if (agg->namespaces().empty()) return false;
  port->BeginBatch();
  port->AddKeys(agg->keys());
  const auto groups = static_cast<int32_t>(agg->namespaces().size());
  acc_reads->clear();
  for (int32_t g = 0; g < groups; ++g) {
    port->SetNamespace(ns(g));
    acc_reads->push_back(port->GetValue(acc_state, g));
  }
  port->ClearNamespace();
  maps->ReadLookups(
      agg->lookups(), [](int32_t g) { return g; }, ns);
  return true;
}

}  // namespace streamfusion::operators
