"""Recover a sub-pixel shift and a scale between two images by gradient descent through
resize_ad.scale_and_translate, which is differentiable in its scale and translation.

    python examples/register_shift.py
"""
import torch

import resize_ad

TRUE_SCALE = (1.07, 0.94)
TRUE_TRANSLATION = (1.37, -0.82)


def _image(size: int) -> torch.Tensor:
    """A smooth test image: a few Gaussian blobs away from the border, so the warp moves no
    content across the zeroed outside of the frame."""
    g = torch.Generator().manual_seed(0)
    yy, xx = torch.meshgrid(torch.arange(size, dtype=torch.float64),
                            torch.arange(size, dtype=torch.float64), indexing="ij")
    img = torch.zeros(size, size, dtype=torch.float64)
    for _ in range(6):
        cy, cx = (0.3 + 0.4 * torch.rand(2, generator=g, dtype=torch.float64)) * size
        sigma = size * (0.06 + 0.06 * float(torch.rand(1, generator=g)))
        img += torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sigma ** 2))
    return img[None, None]


def register(steps: int = 200, size: int = 64):
    """Returns (true, recovered): [scale_y, scale_x, translation_y, translation_x]."""
    src = _image(size)
    shape = tuple(src.shape)
    target = resize_ad.scale_and_translate(src, shape, (2, 3), TRUE_SCALE, TRUE_TRANSLATION, "cubic")
    scale = torch.ones(2, dtype=torch.float64, requires_grad=True)
    translation = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([scale, translation], lr=1.0, max_iter=steps, tolerance_grad=1e-12,
                            tolerance_change=1e-15, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        warped = resize_ad.scale_and_translate(src, shape, (2, 3), scale, translation, "cubic")
        loss = (warped - target).square().mean()
        loss.backward()
        return loss

    opt.step(closure)
    true = list(TRUE_SCALE) + list(TRUE_TRANSLATION)
    found = scale.detach().tolist() + translation.detach().tolist()
    return true, found


if __name__ == "__main__":
    true, found = register()
    names = ["scale_y", "scale_x", "translation_y", "translation_x"]
    for n, t, f in zip(names, true, found):
        print(f"{n:14s} true {t:+.6f}  recovered {f:+.6f}  error {abs(f - t):.2e}")
