"""Figures of the course. Each function draws into a given Axes and returns its artists, so
notebooks compose them and widgets update them in place. No math lives here."""

import numpy as np


def heatmap(
    ax,
    matrix,
    *,
    labels=None,
    title=None,
    cmap="viridis",
    vmin=None,
    vmax=None,
    xlabel="key position j",
    ylabel="query position i",
    colorbar=False,
):
    """Draw ``matrix`` as an image; return the AxesImage."""
    matrix = np.asarray(matrix)
    image = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    if labels is not None:
        set_token_ticks(ax, labels)
    if title:
        ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.8)
    return image


def set_token_ticks(ax, labels):
    """Label both axes of a token-by-token heatmap with the tokens."""
    ticks = np.arange(len(labels))
    ax.set_xticks(ticks, labels, rotation=90)
    ax.set_yticks(ticks, labels)


def grouped_bars(ax, vectors, names, *, title=None, xlabel="dimension"):
    """Bars of several vectors side by side per dimension; return one BarContainer per vector."""
    vectors = [np.asarray(v) for v in vectors]
    width = 0.8 / len(vectors)
    x = np.arange(len(vectors[0]))
    bars = [
        ax.bar(x + (k - (len(vectors) - 1) / 2) * width, v, width, label=name)
        for k, (v, name) in enumerate(zip(vectors, names, strict=True))
    ]
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xticks(x)
    ax.set_xlabel(xlabel)
    ax.legend(fontsize="small", loc="upper right")
    if title:
        ax.set_title(title)
    return bars
