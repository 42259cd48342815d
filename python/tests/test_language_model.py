"""dsgd.train with a language model from Python: a causal nn.Module written in the script trains
on token streams under DiLoCo (kavg with AdamW inside and a Nesterov outer step), its run records
perplexity, the report reads a perplexity target, and a module whose vocabulary is too small is a
ValueError that names the shapes."""
import math

import pytest
import torch

import dsgd

SENTENCES = ["the cat sat on the mat", "a dog ran to the park", "we sing at dawn",
             "to be or not to be", "all is well"]


def token_streams(lines=2000):
    """Bytes of lines chosen by a fixed sequence: a text a small model learns quickly, the last
    tenth held out."""
    state, text = 12345, []
    for _ in range(lines):
        state = (state * 1103515245 + 12345) % 2**32
        text.append(SENTENCES[(state >> 16) % 5])
    ids = torch.tensor(list("\n".join(text).encode()), dtype=torch.long)
    cut = len(ids) * 9 // 10
    return ids[:cut], ids[cut:]


class CausalConv(torch.nn.Module):
    """Each position's next-token logits from the last four tokens (a causal convolution over
    their embeddings): [B, T] int64 in, [B, T, V] out."""

    def __init__(self, vocabulary: int, width: int = 32):
        super().__init__()
        self.embed = torch.nn.Embedding(vocabulary, width)
        self.mix = torch.nn.Conv1d(width, width, 4)
        self.out = torch.nn.Linear(width, vocabulary)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens).transpose(1, 2)
        x = torch.nn.functional.pad(x, (3, 0))  # only the past reaches each position
        x = torch.relu(self.mix(x)).transpose(1, 2)
        return self.out(x)


def test_a_language_model_trains_under_diloco_and_its_report_reads_perplexity():
    train, test = token_streams()
    vocabulary = int(max(train.max(), test.max())) + 1
    torch.manual_seed(0)
    net = CausalConv(vocabulary)
    run = dsgd.train(net, train, test, algo="kavg", workers=4, kavg__period=10,
                     optimizer="adamw", lr=0.01, outer__lr=0.7, outer__momentum=0.9,
                     outer__nesterov=True, seq_len=16, batch_size=8, epochs=1,
                     eval_every=0.5, warmup_epochs=0, lr_schedule="constant", progress=None)
    assert run.status == "ok"
    summary = run.summary
    assert summary["task"] == "language-model" and summary["metric"] == "test_ppl"
    assert summary["tokens"]["vocabulary"] == vocabulary
    frame = run.metrics
    assert list(frame["test_ppl"]) == pytest.approx([math.exp(v) for v in frame["test_loss"]],
                                                    rel=1e-5)
    # A uniform guess is the vocabulary (122 byte ids); the sentences leave a few choices a line.
    assert frame["test_ppl"].iloc[-1] < frame["test_ppl"].iloc[0]
    assert summary["final_test_ppl"] < 4
    assert "validation perplexity" in repr(run)
    path = dsgd.report(run.path, plots=False, target=summary["final_test_ppl"] * 1.5)
    page = open(path).read()
    assert "final test ppl" in page and "at or below it" in page


def test_a_module_whose_vocabulary_is_too_small_names_the_shapes():
    train, test = token_streams(200)
    vocabulary = int(max(train.max(), test.max())) + 1
    with pytest.raises(dsgd.ConfigError,
                       match=rf"\[2, 16, 50\] logits, where \[2, 16, {vocabulary}\]"):
        dsgd.train(CausalConv(50), train, test, algo="sgd", seq_len=16, progress=None)
