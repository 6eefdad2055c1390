#include "engine/model/arch.h"

#include <array>

namespace wafer {
namespace {

using R = WeightRole;
using P = Presence;

constexpr std::array<WeightSpec, 15> kWeights{{
    {R::kTokenEmbd, "token_embd.weight", false, Dim::kEmbd, Dim::kVocab, P::kRequired, false},
    {R::kOutputNorm, "output_norm.weight", false, Dim::kEmbd, Dim::kNone, P::kRequired, false},
    {R::kOutput, "output.weight", false, Dim::kEmbd, Dim::kVocab, P::kOptional, true},
    {R::kAttnNorm, "attn_norm.weight", true, Dim::kEmbd, Dim::kNone, P::kRequired, false},
    {R::kAttnQ, "attn_q.weight", true, Dim::kEmbd, Dim::kQ, P::kRequired, true},
    {R::kAttnK, "attn_k.weight", true, Dim::kEmbd, Dim::kKV_K, P::kRequired, true},
    {R::kAttnV, "attn_v.weight", true, Dim::kEmbd, Dim::kKV_V, P::kRequired, true},
    {R::kAttnQBias, "attn_q.bias", true, Dim::kQ, Dim::kNone, P::kIfQkvBias, false},
    {R::kAttnKBias, "attn_k.bias", true, Dim::kKV_K, Dim::kNone, P::kIfQkvBias, false},
    {R::kAttnVBias, "attn_v.bias", true, Dim::kKV_V, Dim::kNone, P::kIfQkvBias, false},
    {R::kAttnOut, "attn_output.weight", true, Dim::kAttnOut, Dim::kEmbd, P::kRequired, true},
    {R::kFfnNorm, "ffn_norm.weight", true, Dim::kEmbd, Dim::kNone, P::kRequired, false},
    {R::kFfnGate, "ffn_gate.weight", true, Dim::kEmbd, Dim::kFf, P::kRequired, true},
    {R::kFfnUp, "ffn_up.weight", true, Dim::kEmbd, Dim::kFf, P::kRequired, true},
    {R::kFfnDown, "ffn_down.weight", true, Dim::kFf, Dim::kEmbd, P::kRequired, true},
}};

}  // namespace

std::span<const WeightSpec> transformer_weights() { return kWeights; }

uint64_t resolve_dim(Dim d, const ModelConfig& c) {
  switch (d) {
    case Dim::kEmbd: return c.n_embd;
    case Dim::kQ: return uint64_t{c.n_head} * c.head_dim_k;
    case Dim::kKV_K: return uint64_t{c.n_head_kv} * c.head_dim_k;
    case Dim::kKV_V: return uint64_t{c.n_head_kv} * c.head_dim_v;
    case Dim::kAttnOut: return uint64_t{c.n_head} * c.head_dim_v;
    case Dim::kFf: return c.n_ff;
    case Dim::kVocab: return c.n_vocab;
    case Dim::kNone: return 1;
  }
  return 0;
}

std::string weight_name(const WeightSpec& spec, int layer) {
  if (!spec.per_layer) return std::string(spec.name);
  return "blk." + std::to_string(layer) + "." + std::string(spec.name);
}

}  // namespace wafer
