// What the asynchronous local-SGD family shares (async_local_sgd.cpp, async_local_dn.cpp,
// dana_local.cpp): each worker runs H = local.steps steps of its own from the parameters the server
// sent, with the run's optimizer (algos/local_optimizer.h: SGD with the run's momentum, weight
// decay and rate convention, or AdamW, the paper's; its state, velocity or moments and step count,
// kept from one exchange to the next) and sends the pseudo-gradient Δ = x_start − x_end; the
// server applies each Δ as it arrives with an outer optimizer (Liu et al. 2024, "Asynchronous
// Local-SGD Training for Language Modeling", arXiv 2401.09135), at outer rate α = outer.lr and
// outer momentum β = outer.momentum. Every local step of an exchange takes the rate the server
// sent it with (async_rule.h).
//
// With local.dylu (Dynamic Local Updates, the paper's Eq. 6; at least one step) worker i takes
// H_i = max(1, ⌊v_i / max_j v_j · H⌋) steps, v the worker speeds the config declares; the engines
// size the runs (train/local_steps.h), the rules are unchanged.
//
// The outer rate α is constant, so both rate conventions (lr_in_velocity) give the same outer
// steps; the local steps follow the run's convention. Weight decay is taken in the local steps
// only. Private to src/algos/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algos/async_rule.h"

namespace dsgd {

// local.steps and local.dylu, then the outer keys with this rule's defaults (the published ones
// where a paper gives them), then the rule's own.
std::vector<OptionSpec> local_keys(double outer_lr, double outer_momentum, bool with_nesterov,
                                   std::vector<OptionSpec> own);

// The options of the server rule an outer rule is made of: momentum β, no weight decay (the
// local steps take it), the given keys of its own resolved.
AsyncOptions outer_rule_options(const AsyncOptions& options,
                                const std::vector<OptionSpec>& rule_keys,
                                const OptionValues& rule_values);

// `rule` applied to pseudo-gradients at the constant outer rate `outer_lr` instead of the
// schedule's.
std::unique_ptr<AsyncServerRule> at_outer_rate(std::unique_ptr<AsyncServerRule> rule,
                                               double outer_lr);

// An algorithm of the family: its workers take local steps (LocalRun), its server is
// `make_server`'s.
AsyncAlgorithm local_algorithm(std::string name, std::string description,
                               std::vector<OptionSpec> keys,
                               decltype(AsyncAlgorithm::make_server) make_server);

}  // namespace dsgd
