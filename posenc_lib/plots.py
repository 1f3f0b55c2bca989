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


def clock_faces(ax, angles, *, labels=None, highlight=None, spacing=2.6):
    """Draw one small clock per angle, in a row; the hand of clock i points at (sin a, cos a).

    That point is exactly a (sin, cos) pair of the encoding: at angle 0 the hand points to 12
    o'clock and it turns clockwise as the angle grows, like a real clock hand.
    Returns (hands, dots): one Line2D hand and one tip marker per clock.
    """
    theta = np.linspace(0, 2 * np.pi, 90)
    hands, dots = [], []
    for n, angle in enumerate(angles):
        cx = n * spacing
        ax.plot(cx + np.sin(theta), np.cos(theta), color="0.75", lw=1)
        ax.plot([cx, cx], [0.85, 1.0], color="0.6", lw=1)  # the 12 o'clock tick
        color = "C3" if n == highlight else "C0"
        (hand,) = ax.plot([cx, cx + np.sin(angle)], [0, np.cos(angle)], color=color, lw=2.5)
        (dot,) = ax.plot([cx + np.sin(angle)], [np.cos(angle)], "o", color=color, ms=4)
        hands.append(hand)
        dots.append(dot)
        if labels is not None:
            ax.text(cx, -1.35, labels[n], ha="center", va="top", fontsize="small")
    ax.set_xlim(-1.3, (len(angles) - 1) * spacing + 1.3)
    ax.set_ylim(-1.9, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    return hands, dots


def set_clock_hands(hands, dots, angles, spacing=2.6):
    """Turn the hands drawn by `clock_faces` to new angles."""
    for n, (hand, dot, angle) in enumerate(zip(hands, dots, angles, strict=True)):
        cx = n * spacing
        hand.set_data([cx, cx + np.sin(angle)], [0, np.cos(angle)])
        dot.set_data([cx + np.sin(angle)], [np.cos(angle)])


def pair_waves(ax, positions, table, pair, *, marker=None):
    """Columns 2i (sin) and 2i+1 (cos) of ``table`` against position, with an optional marker.

    Returns (sin_line, cos_line, marker_line).
    """
    (sin_line,) = ax.plot(positions, table[:, 2 * pair], label="sin: column 2i")
    (cos_line,) = ax.plot(positions, table[:, 2 * pair + 1], label="cos: column 2i+1")
    # The current position, for the explorer; hidden when no marker is asked for.
    marker_line = ax.axvline(0 if marker is None else marker, color="C3", lw=1.5)
    marker_line.set_visible(marker is not None)
    ax.set_xlabel("position p")
    ax.set_ylabel("value")
    ax.set_ylim(-1.15, 1.15)
    ax.legend(loc="lower left", fontsize="small")
    return sin_line, cos_line, marker_line


def similarity_curves(ax, distances, curves, *, title=None, ylabel="PE[p] . PE[p+k]"):
    """Similarity against distance k, one line per named curve; returns the lines."""
    lines = [ax.plot(distances, values, label=name)[0] for name, values in curves.items()]
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("distance k (positions)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if len(curves) > 1:
        ax.legend(fontsize="small")
    return lines


def rope_plane(ax, limit=2.6):
    """An empty square plane with axes through the origin, for one rotation pair."""
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.set_xlabel("dimension 2i")
    ax.set_ylabel("dimension 2i+1")
    ax.set_title("pair i of q (blue) and k (orange)")


def rope_arrows(ax):
    """Four arrows as lines: q and k before (faint) and after rotation; returns the Line2Ds."""
    styles = [("C0", 0.3), ("C1", 0.3), ("C0", 1.0), ("C1", 1.0)]
    return [
        ax.plot([0, 0], [0, 0], color=c, alpha=a, lw=2.5, marker="o", markevery=[1])[0]
        for c, a in styles
    ]


def set_rope_arrows(arrows, q, k, q_rotated, k_rotated):
    """Point the arrows of `rope_arrows` at new 2-D vectors."""
    for line, vector in zip(arrows, (q, k, q_rotated, k_rotated), strict=True):
        line.set_data([0, vector[0]], [0, vector[1]])
