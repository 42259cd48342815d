// `dsgd list`: the algorithms, models and datasets dsgd knows, its config keys, and the named
// clusters that price a run in seconds (with one all-reduce priced on each, on request).
#pragma once

#include <cstdint>
#include <string>

namespace dsgd {

// What `dsgd list [what]` prints ("" for algorithms, models and datasets), to stdout;
// `cluster_file` adds a table of clusters of one's own.
void list(const std::string& what, const std::string& cluster_file);

// "16" (every worker in one all-reduce) or "16/4" (groups of 4 of 16; the groups divide them):
// `dsgd list clusters --allreduce`'s shape.
bool parse_allreduce_shape(const std::string& text, int64_t& workers, int64_t& group);

}  // namespace dsgd
