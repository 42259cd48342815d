// `dsgd list`; see list_command.h.
#include "cli/list_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "algos/catalog.h"
#include "data/dataset.h"
#include "models/model.h"
#include "run/host_limits.h"
#include "train/cluster.h"
#include "train/config.h"

namespace dsgd {

void list(const std::string& what, const std::string& cluster_file) {
  auto section = [](const std::string& title) { std::cout << title << ":\n"; };
  if (what.empty() || what == "algorithms") {
    section("algorithms (algo = ...)");
    size_t width = 0;  // the longest name's, so that the descriptions line up
    for (const auto& a : algorithm_catalog()) width = std::max(width, a.name.size());
    for (const auto& a : algorithm_catalog()) {
      std::cout << fmt::format("  {:<{}} {}\n", a.name, width, a.description);
    }
  }
  if (what.empty() || what == "models") {
    section("models (model = ...)");
    size_t width = 0;  // as for the algorithms
    for (const auto& m : model_registry()) width = std::max(width, m.name.size());
    for (const auto& m : model_registry()) {
      std::cout << fmt::format("  {:<{}} {}\n", m.name, width, m.description);
    }
    std::cout << fmt::format("  {:<{}} {}\n", "PATH.pt", width,
                             "your own network, saved from Python as TorchScript "
                             "(torch.jit.script(net).save(PATH)); any name with a '/' is a path");
  }
  if (what.empty() || what == "datasets") {
    section("datasets (dataset = ...)");
    for (const auto& d : dataset_registry()) {
      std::cout << fmt::format("  {:<14} {}\n", d.name, d.description);
    }
    std::cout << fmt::format(
        "  {:<14} {}\n", "PATH/",
        "your own images: PATH/train/<class>/*.png|jpg and PATH/test/<class>/* "
        "(torchvision's ImageFolder layout), decoded once (image_size resizes)");
    std::cout << fmt::format(
        "  {:<14} {}\n", "PATH/",
        "your own tensors: PATH/train.pt and test.pt (torch.save({'x': images, 'y': labels})), "
        "or train_x.npy, train_y.npy, test_x.npy, test_y.npy");
  }
  if (what == "keys") {
    const HostLimits limits = host_limits();
    std::cout << fmt::format(
        "this host: {}; threads and sim.replicas x threads at most {}, sweep --jobs at most {} "
        "(check_limits = false lifts them)\n",
        describe(limits), kThreadsPerCore * limits.cores, kThreadsPerCore * limits.cores);
    section(
        "config keys (in the TOML file, or --set KEY=VALUE; those marked \"(may change on "
        "--resume)\" are the only ones a resume may change)");
    for (const auto& k : config_keys()) {
      std::cout << fmt::format("  {:<24} {:<18} default {:<12} {}{}{}\n", k.key, k.type,
                               k.default_value, k.help,
                               k.applies_to.empty() ? "" : " [" + k.applies_to + "]",
                               k.may_change_on_resume ? " (may change on --resume)" : "");
    }
  }
  if (what == "clusters") std::cout << describe_cluster_table(load_cluster_table(cluster_file));
  if (what.empty()) {
    std::cout << "`dsgd list keys` shows every config key; `dsgd list clusters` the named "
                 "clusters, devices and links that price a run in seconds.\n";
  }
}

bool parse_allreduce_shape(const std::string& text, int64_t& workers, int64_t& group) {
  char slash = 0, extra = 0;
  long long w = 0, g = 0;
  const int fields = std::sscanf(text.c_str(), "%lld%c%lld%c", &w, &slash, &g, &extra);
  if (fields == 1 && w >= 1) {
    workers = w;
    group = 0;
    return true;
  }
  if (fields == 3 && slash == '/' && w >= 1 && g >= 1 && g <= w && w % g == 0) {
    workers = w;
    group = g;
    return true;
  }
  return false;
}

}  // namespace dsgd
