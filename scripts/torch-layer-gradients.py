#!/usr/bin/python3
"""Writes the PyTorch reference cases of the layer gradients to tests/data/torch-gradients/.

Layer normalisation (torch.nn.functional.layer_norm) with its gradients, the
softmax cross-entropy (torch.nn.functional.cross_entropy, ignore_index=-1)
with its gradient, and a few steps of torch.optim.Adam: one JSON file per
case, named layer_norm_*, cross_entropy_* and adam_*. Inputs are float32
values from a seeded generator; every output is computed by torch.autograd
(or the optimizer) in float64 on those float32 inputs, and stored as float64.
The format is tests/data/torch/README.md's; tests/data/torch-gradients/
README.md says how the cases were made and how tests/js/layers.test.mjs
checks them. npm test reads the JSON and does not need PyTorch.

Run with Debian's python3-torch (1.13.1): /usr/bin/python3 scripts/torch-layer-gradients.py
"""
import json
import pathlib

import numpy as np
import torch

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "torch-gradients"
SOURCE = f"PyTorch {torch.__version__} float64 autograd on float32 inputs, scripts/torch-layer-gradients.py"


def f32(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def tensor_entry(name, array, dtype="float32"):
    a = np.asarray(array)
    return {"name": name, "shape": list(a.shape), "dtype": dtype, "data": [float(v) if dtype != "int32" else int(v) for v in a.reshape(-1)]}


def short(x):
    """The shortest decimal of a float32 value (parse, then Math.fround, for the bits)."""
    return float(np.format_float_positional(np.float32(x), unique=True, trim="-"))


def f32_entry(name, array):
    a = np.asarray(array, dtype=np.float32)
    return {"name": name, "shape": list(a.shape), "dtype": "float32", "data": [short(v) for v in a.reshape(-1)]}


def f64_entry(name, array):
    a = np.asarray(array, dtype=np.float64)
    return {"name": name, "shape": list(a.shape), "dtype": "float64", "data": [float(v) for v in a.reshape(-1)]}


def write(name, case):
    case = {"source": f"{SOURCE}, case {name}", **case}
    (OUT / f"{name}.json").write_text(json.dumps(case, separators=(",", ":")) + "\n")
    return name


def layer_norm_case(name, rows, n, affine, shift, seed, eps=1e-5):
    rng = np.random.default_rng(seed)
    x = f32(rng, (rows, n), -3.0, 3.0) + np.float32(shift)
    dy = f32(rng, (rows, n))
    gamma = f32(rng, (n,), 0.5, 1.5)
    beta = f32(rng, (n,))
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    gt = torch.tensor(gamma, dtype=torch.float64, requires_grad=True) if affine else None
    bt = torch.tensor(beta, dtype=torch.float64, requires_grad=True) if affine else None
    y = torch.nn.functional.layer_norm(xt, (n,), gt, bt, eps)
    y.backward(torch.tensor(dy, dtype=torch.float64))
    var, mean = torch.var_mean(xt.detach(), dim=-1, unbiased=False)
    inputs = [f32_entry("x", x), f32_entry("dy", dy)]
    outputs = [
        f64_entry("y", y.detach()),
        f64_entry("mean", mean),
        f64_entry("rstd", 1.0 / torch.sqrt(var + eps)),
        f64_entry("dx", xt.grad),
    ]
    if affine:
        inputs += [f32_entry("gamma", gamma), f32_entry("beta", beta)]
        outputs += [f64_entry("dgamma", gt.grad), f64_entry("dbeta", bt.grad)]
    return write(
        name,
        {
            "op": "LayerNorm",
            "description": f"layer_norm over the last axis of x [{rows}, {n}] (values in [-3, 3) + {shift}), "
            + ("gamma and beta, " if affine else "no affine, ")
            + f"eps {eps}; gradients of sum(dy * y)",
            "attributes": {"eps": eps},
            "inputs": inputs,
            "outputs": outputs,
        },
    )


def cross_entropy_case(name, rows, vocab, lo, hi, ignored, seed):
    rng = np.random.default_rng(seed)
    logits = f32(rng, (rows, vocab), lo, hi)
    targets = rng.integers(0, vocab, size=rows).astype(np.int32)
    for r in ignored:
        targets[r] = -1
    lt = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(targets, dtype=torch.int64)
    losses = torch.nn.functional.cross_entropy(lt, tt, ignore_index=-1, reduction="none")
    loss = torch.nn.functional.cross_entropy(lt, tt, ignore_index=-1, reduction="mean")
    loss.backward()
    return write(
        name,
        {
            "op": "CrossEntropy",
            "description": f"softmax cross-entropy of logits [{rows}, {vocab}] in [{lo}, {hi}), "
            + f"rows {list(ignored)} ignored (target -1); the gradient of the mean over the scored rows",
            "attributes": {"ignore_index": -1, "reduction": "mean"},
            "inputs": [f32_entry("logits", logits), tensor_entry("targets", targets, "int32")],
            "outputs": [f64_entry("losses", losses.detach()), f64_entry("loss", loss.detach()), f64_entry("dlogits", lt.grad)],
        },
    )


def adam_case(name, n, steps, lr, betas, eps, seed):
    """torch.optim.Adam on a float64 parameter; the state after every step is recorded."""
    rng = np.random.default_rng(seed)
    param = f32(rng, (n,))
    grads = f32(rng, (steps, n), -2.0, 2.0)
    p = torch.tensor(param, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([p], lr=lr, betas=betas, eps=eps)
    outputs = []
    for s in range(steps):
        opt.zero_grad()
        p.grad = torch.tensor(grads[s], dtype=torch.float64)
        opt.step()
        st = opt.state[p]
        outputs += [
            f64_entry(f"param_{s + 1}", p.detach()),
            f64_entry(f"m_{s + 1}", st["exp_avg"]),
            f64_entry(f"v_{s + 1}", st["exp_avg_sq"]),
        ]
    return write(
        name,
        {
            "op": "Adam",
            "description": f"{steps} steps of torch.optim.Adam (lr {lr}, betas {betas}, eps {eps}) on param [{n}] "
            + "with the gradients grads[s] of step s + 1 (steps count from 1); param_s, m_s (exp_avg), "
            + "v_s (exp_avg_sq) after step s",
            "attributes": {"lr": lr, "beta1": betas[0], "beta2": betas[1], "eps": eps, "steps": steps},
            "inputs": [f32_entry("param", param), f32_entry("grads", grads)],
            "outputs": outputs,
        },
    )


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    names = [
        layer_norm_case("layer_norm_affine_4x8", 4, 8, True, 0.0, 1),
        layer_norm_case("layer_norm_affine_7x65", 7, 65, True, 0.0, 2),
        layer_norm_case("layer_norm_plain_3x13", 3, 13, False, 0.0, 3),
        layer_norm_case("layer_norm_shifted_5x33", 5, 33, True, 50.0, 4),
        layer_norm_case("layer_norm_one_row_300", 1, 300, True, 0.0, 5),
        cross_entropy_case("cross_entropy_8x10", 8, 10, -4.0, 4.0, [], 11),
        cross_entropy_case("cross_entropy_ignored_6x33", 6, 33, -4.0, 4.0, [1, 4], 12),
        cross_entropy_case("cross_entropy_large_logits_5x7", 5, 7, 90.0, 100.0, [], 13),
        cross_entropy_case("cross_entropy_one_row_300", 1, 300, -10.0, 10.0, [], 14),
        adam_case("adam_defaults_n9", 9, 3, 1e-3, (0.9, 0.999), 1e-8, 21),
        adam_case("adam_fast_n37", 37, 4, 3e-2, (0.9, 0.98), 1e-6, 22),
    ]
    print(f"wrote {len(names)} cases to {OUT}: {', '.join(names)}")


if __name__ == "__main__":
    main()
