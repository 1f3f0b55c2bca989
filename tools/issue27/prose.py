PROSE = {}
PROSE["CAPTION"] = ("Trained at 64 characters, only ALiBi holds its bits per character to 1,024; "
    "sinusoidal breaks at once, RoPE and T5 after 2x, and sliding windows make every breakdown worse.")
PROSE["ALT"] = (
    "Two panels, bits per character (about 2.5 to 5.5) against evaluation length 64 to 1,024 "
    "characters on a log axis, one line per scheme with its range over 3 seeds shaded; left "
    "non-overlapping chunks, right sliding windows; a dotted line marks the training length 64. In "
    "both panels the ALiBi line (blue down triangles, solid) is flat at about ⟦alibi64_1⟧; sinusoidal "
    "(orange squares, solid) jumps from about ⟦sin64_1⟧ at 64 to ⟦sin128c_1⟧ (left) or ⟦sin128s_1⟧ "
    "(right) at 128; RoPE (pink diamonds, dashed) rises from about ⟦rope64_1⟧ to ⟦rope1024c_1⟧ (left) "
    "or ⟦rope1024s_1⟧ (right); T5 (black crosses, dash-dotted) starts lowest, about ⟦t564_1⟧, and "
    "climbs to ⟦t51024c_1⟧ (left) or ⟦t51024s_1⟧ (right); no positions (grey circles, dotted) starts "
    "highest, about ⟦none64_1⟧, and creeps up; the learned table (a large hollow green triangle) has "
    "a point at 64 only.")
PROSE["HEADLINE PROSE"] = """Left, the paper's way of scoring. At the training length (the dotted line) ⟦ORDER64⟧; with no
positions the model learnt least (⟦none64⟧). Past it, sinusoidal jumps by more than a bit at once
(⟦sin128c⟧ at 128 characters) and keeps climbing; RoPE loses only ⟦ropeL2⟧ bits at 128 and then
collapses (⟦rope1024c⟧ at 1,024); T5 loses ⟦t5L2⟧ at 128 and then climbs to ⟦t51024c⟧; ALiBi does not
move by more than ⟦alibimax⟧ bits from 64 to 1,024. The learned table cannot run at all past its 64
rows. Right, sliding windows: at 64 every scheme that has positions scores better than in chunks, and
past 64 every scheme but ALiBi scores worse than in chunks. By 1,024 characters sinusoidal and RoPE
predict worse, in both modes, than a model that knows only how often each character occurs (⟦unigram⟧
bits)."""
PROSE["GAPS PROSE"] = """The gap is not largest at one length for everyone: for sinusoidal and no positions it peaks at 128,
for RoPE at ⟦ropepeak⟧, and T5's grows with the length to ⟦t5gap1024⟧ at 1,024. ALiBi's stays within
⟦alibigap⟧ bits of zero from 128 on. Sliding windows score only a window's last quarter, positions 96-127
at 128 characters and 768-1,023 at 1,024: where a scheme's unseen positions hurt it most, the sliding
line sits highest."""
PROSE["PAIRED PROSE"] = """⟦PAIRED_SENTENCE⟧ Where the table says "seeds disagree", the order of
those two schemes at that length is not settled by three seeds, whatever their means say."""
PROSE["PAPER PROSE"] = """Converted, the two sets of numbers part company. At about twice the training length sinusoidal
loses 1.12 bits per word in the paper and ⟦sinword2⟧ here: our sinusoidal model breaks far harder. (The
previous edition of this chapter set the paper's bits per token beside our bits per character and found
"the same" 1.12 in both; in one unit the match disappears.) Rotary loses 0.09 bits per word there and
⟦ropeword2⟧ here. ALiBi's gain on longer inputs has the same size in both: ⟦alibiwordbest⟧ bits per word here at
its best, 0.11 in the paper at thirty times its training length. And our models start far higher: ALiBi
costs ⟦alibiword64⟧ bits per word at the training length here, 4.30 in the paper, since a character model
of 111 thousand parameters is a far weaker model of English than a word model of 247 million. The
conversion is approximate (WikiText-103 splits punctuation into tokens of its own; our words keep it), and
it changes no sign: what agrees is the shape (sinusoidal breaks at once, rotary later, ALiBi holds), not
the size."""
PROSE["AGREE PROSE"] = """**Where it agrees with the paper.** Sinusoidal positions fail as soon as the input is longer than the
training length. Rotary positions degrade more gently at first, then steadily. ALiBi does not degrade:
flat to 16 times its training length, and what it gains from longer chunks is, in bits per word, the
paper's gain. T5's learned bias is the best of all at the training length (the paper: 19.65 against
19.73-20.07). And a learned table, which the paper left out, cannot run at all.

**Where it does not.** (1) ALiBi pays at the training length: ⟦alibibehind⟧ bits per character behind
sinusoidal, RoPE and T5 (in every seed), where in the paper it was within 0.1 perplexity of the best.
(2) T5 holds only to twice its training length. (3) RoPE ends ⟦ropevsin⟧. Three kinds of cause are
possible: the evaluation, the configuration and the scale. The next sections test the first two as far as
this sweep can."""
PROSE["CURSE PROSE"] = """Every scheme pays ⟦first⟧ bits for the first character of a chunk of 64, ⟦second⟧ for the second,
⟦third⟧ for the third; from the fourth on, a chunk's characters are predicted about as well as the sliding
windows' characters, which have 48 or more characters before them. In character-level text the curse is
short: about three starved characters per chunk. Chunking at 64 therefore costs the schemes with positions
only ⟦chunkcost⟧ bits per character (ALiBi ⟦alibichunkcost⟧), and that is all there is to win back from longer
chunks. ALiBi's non-overlapping line wins back ⟦alibiwin⟧ of it by 256 characters (⟦alibi64c3⟧ to
⟦alibi256c3⟧), while the sliding line does not fall with length (⟦alibi64s3⟧ at 64, ⟦alibi1024s3⟧ at 1,024):
characters with hundreds of characters of context are predicted no better than with 48 to 63. The
content-controlled panel shows where the gain sits: inside a chunk of 1,024, ALiBi's characters at
positions 0, 1 and 2 of each chunk of 64 gain ⟦alibistarts⟧ bits over the same characters starting a chunk of
64, and the rest change by ⟦alibirest⟧. That is Press et al.'s own reading of their table: ALiBi's gain on
long inputs comes from fewer starved tokens, not from using the longer context. (No positions is the odd
one out: it predicts later characters *worse* than early ones, so for it sliding windows, which score
only late positions, cost ⟦nonecost⟧ bits.)"""
PROSE["RIGHT PANEL PROSE"] = """The right panel scores the same text in chunks of 1,024 and subtracts, character by character, what the
same character costs in its chunk of 64. Raw, every scheme's bits rise and fall together from bin to bin
(the table's raw rows: even ALiBi and no positions move with the text); the subtraction removes that.
What is left is what the long chunk adds. Sinusoidal pays ⟦sinextra⟧ extra bits from the first position it
never saw, and about that everywhere after. RoPE pays ⟦ropeextra1⟧ at positions 64-127, then ⟦ropeextra2⟧ and more
from 128 on: relative rotations extend a little way, not indefinitely. T5's extra cost grows across the
chunk, to ⟦t5extralast⟧ in the last bin. ALiBi's stays within ⟦alibiextra⟧ of zero everywhere. No
positions pays ⟦noneextra⟧: it, too, predicts later characters worse."""
PROSE["CONFIG PROSE"] = """- **T5.** Our buckets reach the training length, as in chapter 6, so that training trains every bucket.
  The price: the last bucket, shared by every distance from 59 on, was trained on only 5 distances, and
  at 1,024 characters it covers 965. A hypothesis for T5's climb: every far key gets the same learned
  score, tuned for a few, and the more of them there are, the more attention they take from the near
  keys. ⟦T5VARIANT⟧
- **ALiBi.** With 4 heads the slopes are 1/4 to 1/256; the paper's models had 8 heads, slopes 1/2 to
  1/256. ALiBi has no way to single out an exact offset (chapter 5, section 7; chapter 6's lookback
  task), and spelling depends on exactly which characters came just before: a hypothesis for its cost
  at 64. ⟦ALIBIVARIANT⟧
- **RoPE.** Its heads are 16 wide: 8 rotation pairs, of which 5 turn less than half a circle within 64
  positions. Chapter 6 (section 5) showed that RoPE's extrapolation depends on the head width.
  ⟦ROPEVARIANT⟧
- **NoPE.** Without positions and without a start token, 1,000 steps taught this model least (⟦none64⟧
  bits at 64, ⟦nonebehind⟧ or more behind every other scheme in every seed). Without positions a model has to
  work out where it is from the causal mask alone (chapter 1); with two layers and no start token, this
  one did so poorly. We did not test that explanation here."""
PROSE["CAPTION2"] = ("Left, a chunk's first two or three characters pay for having no context, whatever the "
    "scheme. Right, with the text cancelled, positions past the trained 64 cost sinusoidal at once, "
    "RoPE from 128, T5 more and more, and ALiBi nothing.")
PROSE["ALT2"] = ("Two panels. Left, bits per character against the position in a chunk of 64 (0 to 63), "
    "one line per scheme, ranges over 3 seeds shaded; every line starts at ⟦firstrange⟧ bits at "
    "position 0, falls to about 3 by position 2 and then wanders between about 2.2 and 3 (no "
    "positions higher, about 3.5). Right, the extra bits per character a chunk of 1,024 costs over "
    "the same character in its chunk of 64, in bins of 64 positions, with a grey line at zero and a "
    "dotted line at 64: every line is at zero in the first bin; sinusoidal (orange squares) jumps to "
    "about ⟦sinextra⟧ and stays there; RoPE (pink diamonds) is at ⟦ropeextra1⟧ in the second bin and "
    "⟦ropeextra2⟧ to ⟦ropeextramax⟧ after it; T5 (black crosses) climbs to ⟦t5extralast⟧; ALiBi (blue "
    "down triangles) stays at about zero; no positions (grey circles) between ⟦noneextramin⟧ and "
    "⟦noneextramax⟧.")
PROSE["CHECK PROSE"] = """Sinusoidal: chunks are far better (⟦sin128c3⟧ against ⟦sin128s3⟧ bits), because sliding windows score only
positions 96-127, every one of them past the 64 the model was trained on. ALiBi: sliding windows are
better, by a hair (⟦alibi128s3⟧ against ⟦alibi128c3⟧, ⟦alibi128seeds⟧), because they spare it the starved
starts of the chunks. The mode you evaluate in decides which scheme looks good: chunks flatter a scheme
that breaks on unseen positions, sliding windows flatter one that does not."""
