"""Chapter 2: sinusoidal positions."""

from ..sinusoidal import shift_matrix, sinusoidal_positions, wavelengths
from ._core import FunctionExercise

q1 = FunctionExercise(
    name="positions",
    prompt=(
        "Write positions(seq_len, d_model) returning the (seq_len, d_model) sinusoidal table: "
        "PE[p, 2i] = sin(p / 10000**(2i/d_model)), PE[p, 2i+1] = cos(same angle). "
        "For odd d_model the last column is a sin. Try it without Python loops."
    ),
    hint_text=(
        "Make the angles as an outer product: np.arange(seq_len)[:, None] times the pair "
        "frequencies 10000 ** (-np.arange(0, d_model, 2) / d_model). Fill pe[:, 0::2] with their "
        "sines and pe[:, 1::2] with the cosines of the first d_model // 2 columns of angles."
    ),
    starter="""def positions(seq_len, d_model):
    pe = np.zeros((seq_len, d_model))
    # YOUR CODE HERE: angles for every (position, pair), then sines and cosines
    return pe""",
    solution_code="""def positions(seq_len, d_model):
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)   # one speed per pair i
    angles = np.arange(seq_len)[:, None] * omega[None, :]       # (seq_len, ceil(d/2))
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe""",
    answer_name="positions",
    reference=lambda seq_len, d_model: sinusoidal_positions(seq_len, d_model),
    cases=(
        {"seq_len": 50, "d_model": 16},
        {"seq_len": 10, "d_model": 512},
        {"seq_len": 7, "d_model": 5},
    ),
    success="Compare with posenc_lib.sinusoidal_positions: the same idea, plus argument checks.",
)

q2 = FunctionExercise(
    name="wavelength",
    prompt=(
        "Write wavelength(i, d_model) returning how many positions pair i takes to turn once "
        "round its clock (base 10000)."
    ),
    hint_text=(
        "Pair i turns by omega_i = 10000 ** (-2i / d_model) radians per position; one turn is "
        "2 pi radians."
    ),
    starter="""def wavelength(i, d_model):
    # YOUR CODE HERE
    return 0.0""",
    solution_code="""def wavelength(i, d_model):
    return 2 * np.pi * 10000.0 ** (2 * i / d_model)""",
    answer_name="wavelength",
    reference=lambda i, d_model: wavelengths(d_model)[i],
    cases=({"i": 0, "d_model": 512}, {"i": 1, "d_model": 16}, {"i": 255, "d_model": 512}),
    success="From 2 pi positions for pair 0 to almost 10000 * 2 pi for the last pair.",
)

q3 = FunctionExercise(
    name="pair_shift",
    prompt=(
        "Write pair_shift(k, omega) returning the 2x2 matrix M with "
        "[sin((p+k) w), cos((p+k) w)] == M @ [sin(p w), cos(p w)] for every p (w = omega)."
    ),
    hint_text=(
        "Expand sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b "
        "with a = p w and b = k w; read off the coefficients of sin a and cos a."
    ),
    starter="""def pair_shift(k, omega):
    # YOUR CODE HERE
    return np.eye(2)""",
    solution_code="""def pair_shift(k, omega):
    c, s = np.cos(k * omega), np.sin(k * omega)
    return np.array([[c, s], [-s, c]])""",
    answer_name="pair_shift",
    # A width-2 encoding has one pair with omega = 1, so a shift by k * omega does it.
    reference=lambda k, omega: shift_matrix(k * omega, 2),
    cases=({"k": 1, "omega": 1.0}, {"k": 3, "omega": 0.1}, {"k": -2, "omega": 0.5}),
    success="It doesn't involve p: one matrix shifts every position by k.",
)

EXERCISES = [q1, q2, q3]
