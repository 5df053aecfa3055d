// Readable text form of the graph IR, with a printer and a parser that
// round-trip (print(parse(print(g))) == print(g)). Example:
//
//   graph @mlp {
//     input @x : f32[1,784]
//     weight @fc1.weight : f32[512,784] = normal(mean=0, std=0.0357, seed=1234)
//     weight @fc1.bias : f32[512] = constant(0)
//     %0 = linear(@x, @fc1.weight, @fc1.bias) : f32[1,512]
//     %1 = relu(%0) : f32[1,512]
//     %2 = softmax(%1) {axis = -1} : f32[1,512]
//     output @probs = %2
//   }
//
// Params are @names (quoted @"..." when they contain characters outside
// [A-Za-z0-9_.:/-]); op results are %N numbered in print order. Attributes:
// integers, floats (always printed with '.', 'e', "inf" or "nan" so they stay
// floats), "strings" and [int, lists]. Weights with data but no initializer
// print as `= data` (the data itself is not part of the text; parsing one
// gives a weight that must get data before execution). Comments start with //.
#pragma once

#include <string>
#include <string_view>

#include "core/graph.h"

namespace meshtest {

std::string print_graph(const Graph& graph);
// An op's attributes as printed after its operands: " {axis = -1}", or ""
// when there are none (shared with the device-program dump).
std::string print_attrs(const Attrs& attrs);

// Parses IR text; throws ParseError "<source>:<line>:<col>: message".
// The parsed graph is verified (verify_graph) before it is returned.
Graph parse_graph(std::string_view text, std::string_view source_name = "<input>");

}  // namespace meshtest
