#pragma once

// The probe corpora under testdata/, for tests: tab-separated lines written by the Java probes
// beside them (from Flink's own functions), whose text fields write tab, newline and backslash
// as \t, \n and \\.

#include <fstream>
#include <string>
#include <vector>

namespace streamfusion::functions::testing {

inline std::string UnescapeProbeField(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      out.push_back(c == 't' ? '\t' : c == 'n' ? '\n' : c);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Every line of testdata/`name`, split at tabs, each field unescaped; empty when unreadable.
inline std::vector<std::vector<std::string>> ReadProbeCases(const std::string& name) {
  std::ifstream in(std::string(SF_TEST_SOURCE_DIR) + "/functions/testdata/" + name);
  std::vector<std::vector<std::string>> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string>& fields = cases.emplace_back();
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      fields.push_back(UnescapeProbeField(line.substr(start, tab - start)));
    }
    fields.push_back(UnescapeProbeField(line.substr(start)));
  }
  return cases;
}

}  // namespace streamfusion::functions::testing
