#pragma once

// Calls of user-defined scalar functions that run in the JVM (plan function "UDF").
//
// A UDF call evaluates its operands natively, then hands the operand values of the rows in its
// Selection to the JVM in ONE call per batch, as BinaryRowData images of the operand types; the
// JVM side (io.streamfusion.runtime.udf.UdfBridge) calls the function's eval once per row, as
// Flink's generated code would, and answers with one image of the result type per row. Rows
// outside the Selection are never sent, so a UDF inside CASE/AND or after a filter is called for
// exactly the rows Flink calls it for.

#include <cstdint>
#include <functional>

#include "streamfusion/batch/binary_row.h"
#include "streamfusion/common/status.h"

namespace streamfusion::expression {

// The JVM end of UDF calls, owned by the pipeline's JNI handle (jni/ implements it; expression/
// stays free of <jni.h>). Only valid while the pipeline is processing a batch on the thread that
// called into native code.
class UdfCaller {
 public:
  // Receives the results: `num_rows` BinaryRowData images of ROW<result>, row i at
  // [offsets[i], offsets[i+1]) of `data`. The memory is valid only during the call.
  using ResultConsumer =
      std::function<Status(const uint8_t* data, const int32_t* offsets, int32_t num_rows)>;

  virtual ~UdfCaller() = default;

  // Calls UDF `udf_index` (Plan.udfs) once per row image of `arguments` and passes the results
  // to `consume`. An exception thrown by the function is an error status; the JVM side keeps the
  // exception itself and rethrows it as the job failure.
  virtual Status Call(int32_t udf_index, const batch::BinaryRowBuffer& arguments,
                      const ResultConsumer& consume) = 0;
};

}  // namespace streamfusion::expression
