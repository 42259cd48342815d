// The report's table as text: markdown for report.md, CSV for report.csv; see report_table.h.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join lives here since {fmt} 11 (LibTorch 2.x ships it)

#include <sstream>
#include <string>

#include "experiment/report_table.h"

namespace dsgd {
namespace {

// A CSV field, quoted where it holds a comma or a quote (RFC 4180).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string markdown_table(const std::vector<Column>& columns,
                           const std::vector<Configuration>& configurations,
                           const std::vector<Row>& rows) {
  std::ostringstream md;
  md << "|";
  for (const Column& column : columns) md << " " << column.header << " |";
  md << "\n|";
  for (size_t i = 0; i < columns.size(); ++i) md << "---|";
  md << "\n";
  for (size_t i = 0; i < configurations.size(); ++i) {
    md << "|";
    for (const Column& column : columns) {
      md << " " << column.markdown(configurations[i], rows[i]) << " |";
    }
    md << "\n";
  }
  return md.str();
}

std::string csv_table(const std::vector<Column>& columns,
                      const std::vector<Configuration>& configurations,
                      const std::vector<Row>& rows) {
  std::ostringstream csv;
  std::vector<std::string> header;
  for (const Column& column : columns) {
    for (const std::string& name : column.csv_headers) header.push_back(csv_field(name));
  }
  csv << fmt::format("{}\n", fmt::join(header, ","));
  for (size_t i = 0; i < configurations.size(); ++i) {
    std::vector<std::string> cells;
    for (const Column& column : columns) {
      for (const std::string& cell : column.csv(configurations[i], rows[i])) {
        cells.push_back(csv_field(cell));
      }
    }
    csv << fmt::format("{}\n", fmt::join(cells, ","));
  }
  return csv.str();
}

}  // namespace dsgd
