#pragma once
// A what-if ranking as text (`neuronsim whatif`) and as JSON (`--json`, the Python
// module's dict): the same rows, byte-identical run after run.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "whatif/analysis.hpp"

namespace neuronsim::whatif {

std::string ranking_text(const Result& r);
nlohmann::ordered_json ranking_json(const Result& r);
std::string kind_name(ResourceKind k);
// The insights alone (what `neuronsim view --insights` adds), "" when there are none.
std::string insights_text(const std::vector<Insight>& insights);
nlohmann::ordered_json insights_json(
    const std::vector<Insight>& insights);  // "engine", "dma", "hbm", "port", "host", "semaphore"

}  // namespace neuronsim::whatif
