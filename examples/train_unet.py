"""Train a small U-Net through resize_ad on the CPU: synthetic circles / squares segmentation.

Every resize in the network runs on resize_ad: area downsampling in the encoder,
resize_ad.Upsample (bilinear) in the decoder, and a bicubic resize of the logits to the label
resolution (labels are drawn at a finer grid than the input). The script prints:

1. the gradient agreement with native torch at the first step: the same network with
   F.interpolate / nn.Upsample, same weights, same batch; max |diff| over all parameter
   gradients, in float32 (the training dtype) and float64;
2. the training loss falling;
3. a step with a second-order gradient penalty, loss + lambda * ||d loss / d input||^2, whose
   parameter gradient needs the double backward of every resize op; again compared with
   native.

Run:  python examples/train_unet.py            (about 30 s on one CPU core)
      python examples/train_unet.py --steps 3  (smoke run)
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import resize_ad

CLASSES = ("background", "circle", "square")


# ---------------------------------------------------------------- data

def make_batch(n: int, size: int, label_size: int, generator: torch.Generator):
    """n images (3 x size x size, two noisy coloured shapes each) and their label maps
    (label_size x label_size, 0 = background, 1 = circle, 2 = square), drawn analytically on
    each grid so the labels are a genuinely finer rendering than the image."""

    def rand(*shape):
        return torch.rand(*shape, generator=generator)

    kind = (rand(n, 2) < 0.5).long() + 1                 # two shapes per image: 1 circle, 2 square
    cx, cy = 0.2 + 0.6 * rand(n, 2), 0.2 + 0.6 * rand(n, 2)
    r = 0.12 + 0.12 * rand(n, 2)

    def render(res):
        t = (torch.arange(res, dtype=torch.float32) + 0.5) / res
        yy, xx = t.view(1, 1, res, 1), t.view(1, 1, 1, res)
        dx = xx - cx.view(n, 2, 1, 1)
        dy = yy - cy.view(n, 2, 1, 1)
        rr = r.view(n, 2, 1, 1)
        circle = dx * dx + dy * dy <= rr * rr
        square = (dx.abs() <= rr) & (dy.abs() <= rr)
        inside = torch.where(kind.view(n, 2, 1, 1) == 1, circle, square)
        label = torch.zeros(n, res, res, dtype=torch.long)
        for s in range(2):  # the second shape is drawn on top
            label = torch.where(inside[:, s], kind[:, s].view(n, 1, 1), label)
        return label

    label_img = render(size)
    # per image: background, circle and square colours; circles lean red, squares blue, so
    # colour and shape both tell the classes apart (a short run learns both classes)
    colour = 0.6 * rand(n, 3, 3)
    colour[:, 1, 0] += 0.4
    colour[:, 2, 2] += 0.4
    img = torch.gather(colour, 1, label_img.view(n, -1, 1).expand(n, -1, 3))  # [n, HW, rgb]
    img = img.view(n, size, size, 3).permute(0, 3, 1, 2).contiguous()
    img = img + 0.15 * torch.randn(n, 3, size, size, generator=generator)
    return img, render(label_size)


# ---------------------------------------------------------------- model

def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(4, cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(4, cout), nn.SiLU())


class UNet(nn.Module):
    """Two-level U-Net. ``native=True`` builds the same network on F.interpolate / nn.Upsample
    (same parameter names, so state dicts are interchangeable)."""

    def __init__(self, label_size: int, width: int = 16, native: bool = False):
        super().__init__()
        self.label_size = label_size
        self.native = native
        up = nn.Upsample if native else resize_ad.Upsample
        w = width
        self.enc1, self.enc2, self.mid = block(3, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.up2, self.up1 = up(scale_factor=2, mode="bilinear"), up(scale_factor=2, mode="bilinear")
        self.dec2, self.dec1 = block(4 * w + 2 * w, 2 * w), block(2 * w + w, w)
        self.head = nn.Conv2d(w, len(CLASSES), 1)

    def resize(self, x, **kw):
        return (F.interpolate if self.native else resize_ad.interpolate)(x, **kw)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.resize(e1, scale_factor=0.5, mode="area"))
        m = self.mid(self.resize(e2, scale_factor=0.5, mode="area"))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        logits = self.head(d1)
        # labels live on a finer grid: resize the logits (bicubic) to it
        return self.resize(logits, size=(self.label_size, self.label_size), mode="bicubic",
                           align_corners=False)


def loss_fn(model, x, y):
    return F.cross_entropy(model(x), y)


def penalised_loss(model, x, y, lam):
    """loss + lam * ||d loss / d x||^2: its parameter gradient differentiates a gradient, so
    it runs the double backward of every resize op (and of convs, norms, ...)."""
    x = x.detach().requires_grad_(True)
    loss = loss_fn(model, x, y)
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    pen = gx.pow(2).sum()
    return loss + lam * pen, loss, pen


def grads(model):
    return [p.grad.detach().clone() for p in model.parameters()]


def max_diff(ga, gb):
    return max(float((a - b).abs().max()) for a, b in zip(ga, gb))


def compare_with_native(model, x, y, dtype, penalty_only=False):
    """Max |diff| of all parameter gradients between the resize_ad model and its native twin
    (same weights), on one batch, and the largest gradient entry. With penalty_only the
    gradient is that of ||d loss / d x||^2 alone: purely second order."""
    ours = copy.deepcopy(model).to(dtype)
    twin = UNet(model.label_size, native=True).to(dtype)
    twin.load_state_dict(ours.state_dict())
    out = []
    for m in (ours, twin):
        m.zero_grad(set_to_none=True)
        if penalty_only:
            loss = penalised_loss(m, x.to(dtype), y, 1.0)[2]
        else:
            loss = loss_fn(m, x.to(dtype), y)
        loss.backward()
        out.append(grads(m))
    scale = max(float(g.abs().max()) for g in out[1])
    return max_diff(*out), scale


def evaluate(model, x, y):
    """Pixel accuracy and the IoU of each shape class."""
    with torch.no_grad():
        pred = model(x).argmax(1)
    ious = []
    for c in range(1, len(CLASSES)):
        inter = ((pred == c) & (y == c)).sum().item()
        union = ((pred == c) | (y == c)).sum().item()
        ious.append(inter / union if union else float("nan"))
    return (pred == y).float().mean().item(), ious


# ---------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=32, help="input resolution")
    ap.add_argument("--label-size", type=int, default=48, help="label resolution (bicubic logits)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--penalty", type=float, default=10.0, help="lambda of the gradient penalty")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1,
                    help="CPU threads (default 1: these small tensors run faster without OpenMP "
                         "fan-out, and much faster on a busy machine)")
    ap.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = ap.parse_args(argv)
    threads = torch.get_num_threads()
    torch.set_num_threads(args.threads)
    try:
        return _run(args)
    finally:
        torch.set_num_threads(threads)


def _run(args):

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    t0 = time.perf_counter()
    model = UNet(args.label_size)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    x_val, y_val = make_batch(64, args.size, args.label_size, torch.Generator().manual_seed(10_000 + args.seed))
    nparams = sum(p.numel() for p in model.parameters())
    print(f"U-Net, {nparams} parameters; input {args.size}x{args.size}, labels "
          f"{args.label_size}x{args.label_size}; resize_ad {resize_ad.__version__}, torch {torch.__version__}")

    # 1. gradient agreement with native at the first step (before any update)
    x, y = make_batch(args.batch, args.size, args.label_size, gen)
    d32, s32 = compare_with_native(model, x, y, torch.float32)
    d64, s64 = compare_with_native(model, x, y, torch.float64)
    print(f"step 0 gradient vs native F.interpolate: max|diff| float32 {d32:.2e}, float64 {d64:.2e} "
          f"(largest gradient entry {s32:.2e})")

    # 2. training
    losses = []
    acc0, iou0 = evaluate(model, x_val, y_val)
    for step in range(1, args.steps + 1):
        if step > 1:
            x, y = make_batch(args.batch, args.size, args.label_size, gen)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % args.log_every == 0 or step == 1 or step == args.steps:
            k = min(len(losses), args.log_every)
            print(f"step {step:4d}  loss {losses[-1]:.4f}  (mean of last {k}: {sum(losses[-k:]) / k:.4f})")
    acc1, iou1 = evaluate(model, x_val, y_val)
    fmt = lambda iou: ", ".join(f"{n} {v:.2f}" for n, v in zip(CLASSES[1:], iou))  # noqa: E731
    print(f"64 held-out images: pixel accuracy {acc0:.3f} -> {acc1:.3f}; IoU {fmt(iou0)} -> {fmt(iou1)}")

    # 3. one step with a second-order gradient penalty
    x, y = make_batch(args.batch, args.size, args.label_size, gen)
    opt.zero_grad(set_to_none=True)
    total, loss, pen = penalised_loss(model, x, y, args.penalty)
    total.backward()
    finite = all(torch.isfinite(p.grad).all() for p in model.parameters())
    opt.step()
    print(f"gradient-penalty step: loss {loss.item():.4f} + {args.penalty} * ||dL/dx||^2 "
          f"(= {pen.item():.3e}); parameter grads finite: {finite}")
    dp32, ps32 = compare_with_native(model, x, y, torch.float32, penalty_only=True)
    dp64, _ = compare_with_native(model, x, y, torch.float64, penalty_only=True)
    print(f"d||dL/dx||^2/d(params) (double backward) vs native: max|diff| float32 {dp32:.2e}, "
          f"float64 {dp64:.2e} (largest entry {ps32:.2e})")
    elapsed = time.perf_counter() - t0
    print(f"done in {elapsed:.1f} s")

    k = max(1, min(10, len(losses) // 4))
    result = dict(
        steps=args.steps, loss_first=losses[0], loss_last=losses[-1],
        loss_first_mean=sum(losses[:k]) / k, loss_last_mean=sum(losses[-k:]) / k,
        grad_diff_f32=d32, grad_diff_f64=d64, grad_scale=s32,
        penalty_grad_diff_f32=dp32, penalty_grad_diff_f64=dp64, penalty_grad_scale=ps32, penalty=pen.item(),
        grads_finite=bool(finite), acc_before=acc0, acc_after=acc1, iou_after=iou1, seconds=elapsed,
    )
    if args.json:
        print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
