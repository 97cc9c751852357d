"""Keyed randomness: every random number is a pure function of where it is used.

A number is Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC 2011; the generator of Random123, cuRAND and NumPy's `Philox`) applied to a
counter made of (skirmish index, round, event site, actor, k) under a key made of the
seed. Nothing is drawn in sequence, so a skirmish's numbers do not depend on which
other skirmishes share its chunk, on the chunk size, the worker count or the backend;
two variants of a scenario read the same number at the same event (common random
numbers by construction); and the same function runs inside Numba kernels (and could
run one thread per skirmish on a GPU) or in plain Python.

Counter layout (four 32-bit words):
    c0 = skirmish index, low 32 bits
    c1 = round (0 for what happens before the first round)
    c2 = event site << 20 | actor          (site < 4096, actor < 2**20)
    c3 = k | retry << 20 | skirmish >> 32 << 24   (k < 2**20, retry < 16, skirmish < 2**40)
Key: the seed's low and high 32 bits.

One evaluation gives four 32-bit words. `uniform` uses two of them (53 bits); `die` uses
Lemire's multiply-and-reject method, so a die of n sides has no modulo bias, trying the
next word (and, in the astronomically rare case that all four are rejected, the next
retry counter) when a word falls in the biased sliver.

Blocked sites use all four: number k of (site, actor) is word k % 4 of the evaluation
whose k field is k // 4 (`block`, `die4`, `dice4`, `uniform_words`), so one evaluation
serves four dice. A rejected word is replaced by the same word of the next retry
counters, so each number still has a key of its own. A site is either blocked or not:
the two layouts share counters and must not be mixed on one site.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from sim.jit import once

_M32 = np.uint64(0xFFFFFFFF)
_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_U32 = np.uint64(32)
_TWO_POW_32 = np.uint64(1 << 32)
_INV_2_53 = 1.0 / 9007199254740992.0

SITE_BITS, ACTOR_BITS, K_BITS, RETRY_BITS = 12, 20, 20, 4
MAX_SITE, MAX_ACTOR, MAX_K = 1 << SITE_BITS, 1 << ACTOR_BITS, 1 << K_BITS
MAX_SKIRMISH = 1 << 40  # c0 holds 32 bits, the top byte of c3 the next 8


@once
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Philox4x32 with 10 rounds on uint64 values holding 32-bit words."""
    for _ in range(10):
        p0 = _PHILOX_M0 * c0
        p1 = _PHILOX_M1 * c2
        c0, c1, c2, c3 = ((p1 >> _U32) ^ c1 ^ k0), (p1 & _M32), ((p0 >> _U32) ^ c3 ^ k1), (p0 & _M32)
        k0 = (k0 + _PHILOX_W0) & _M32
        k1 = (k1 + _PHILOX_W1) & _M32
    return c0, c1, c2, c3


@once
def _counter(skirmish, rnd, site, actor, k, retry):
    sk = np.uint64(skirmish)
    c2 = ((np.uint64(site) << np.uint64(ACTOR_BITS)) | np.uint64(actor)) & _M32
    c3 = (np.uint64(k) | (np.uint64(retry) << np.uint64(K_BITS)) | ((sk >> _U32) << np.uint64(24))) & _M32
    return sk & _M32, np.uint64(rnd) & _M32, c2, c3


@once
def _words(seed, skirmish, rnd, site, actor, k, retry):
    s = np.uint64(seed)
    sk = np.uint64(skirmish)
    c0 = sk & _M32
    c1 = np.uint64(rnd) & _M32
    c2 = ((np.uint64(site) << np.uint64(ACTOR_BITS)) | np.uint64(actor)) & _M32
    c3 = (np.uint64(k) | (np.uint64(retry) << np.uint64(K_BITS)) | ((sk >> _U32) << np.uint64(24))) & _M32
    return philox4x32(c0, c1, c2, c3, s & _M32, s >> _U32)


@once
def uniform(seed, skirmish, rnd, site, actor, k):
    """A float in [0, 1) with 53 random bits."""
    w0, w1, _, _ = _words(seed, skirmish, rnd, site, actor, k, 0)
    return float((w0 << np.uint64(21)) ^ (w1 >> np.uint64(11))) * _INV_2_53


@once
def _lemire(word, sides, threshold):
    # (word * sides) >> 32 is uniform on 0..sides-1 once words whose low product falls
    # below `threshold` ((2**32 - sides) mod sides) are rejected.
    m = word * sides
    if (m & _M32) < threshold:
        return -1
    return np.int64(m >> _U32) + 1


@once
def die(sides, seed, skirmish, rnd, site, actor, k):
    """One roll of a die with `sides` faces (1..sides), without modulo bias."""
    n = np.uint64(sides)
    m = _words(seed, skirmish, rnd, site, actor, k, 0)[0] * n
    # A low product of at least `sides` is above the rejection threshold, which is below
    # `sides`: the threshold (a 64-bit division) is needed only in the rare other case.
    if (m & _M32) >= n:
        return np.int64(m >> _U32) + 1
    return _die_checked(n, seed, skirmish, rnd, site, actor, k)


@once
def _die_checked(n, seed, skirmish, rnd, site, actor, k):
    threshold = (_TWO_POW_32 - n) % n
    for retry in range(16):
        w0, w1, w2, w3 = _words(seed, skirmish, rnd, site, actor, k, retry)
        r = _lemire(w0, n, threshold)
        if r < 0:
            r = _lemire(w1, n, threshold)
        if r < 0:
            r = _lemire(w2, n, threshold)
        if r < 0:
            r = _lemire(w3, n, threshold)
        if r > 0:
            return r
    return np.int64(1)  # unreachable in practice: sixty-four rejections in a row


@once
def die_first_word(word, sides, seed, skirmish, rnd, site, actor, k):
    """die(sides, ..) given word 0 of its first evaluation (from blocks_into, b = k): the
    same number, evaluating again only when that word could be rejected."""
    n = np.uint64(sides)
    m = np.uint64(word) * n
    if (m & _M32) >= n:
        return np.int64(m >> _U32) + 1
    return _die_checked(n, seed, skirmish, rnd, site, actor, k)


@once
def dice(count, sides, bonus, seed, skirmish, rnd, site, actor, k0):
    """count d sides + bonus, the j-th die keyed k0 + j (a fixed expression without dice: bonus)."""
    total = np.int64(bonus)
    for j in range(count):
        total += die(sides, seed, skirmish, rnd, site, actor, k0 + j)
    return total


@once
def block(seed, skirmish, rnd, site, actor, b):
    """The four words of block b of a blocked site: numbers k = 4b .. 4b + 3."""
    return _words(seed, skirmish, rnd, site, actor, b, 0)


@once
def blocks_into(words, actors, count, seed, skirmish, rnd, site, b):
    """words[q, j] = word q of block b of (site, actors[j]) for j < count (int64 arrays
    holding the 32-bit words): one branch-free loop over independent evaluations, which
    the compiler may run several to a vector register."""
    s = np.uint64(seed)
    k0i, k1i = s & _M32, s >> _U32
    sk = np.uint64(skirmish)
    c0i, c1i = sk & _M32, np.uint64(rnd) & _M32
    c3i = (np.uint64(b) | ((sk >> _U32) << np.uint64(24))) & _M32
    site_bits = np.uint64(site) << np.uint64(ACTOR_BITS)
    for j in range(count):
        c0, c1, c3, k0, k1 = c0i, c1i, c3i, k0i, k1i
        c2 = (site_bits | np.uint64(actors[j])) & _M32
        for _ in range(10):
            p0 = _PHILOX_M0 * c0
            p1 = _PHILOX_M1 * c2
            c0, c1, c2, c3 = ((p1 >> _U32) ^ c1 ^ k0), (p1 & _M32), ((p0 >> _U32) ^ c3 ^ k1), (p0 & _M32)
            k0 = (k0 + _PHILOX_W0) & _M32
            k1 = (k1 + _PHILOX_W1) & _M32
        words[0, j], words[1, j], words[2, j], words[3, j] = np.int64(c0), np.int64(c1), np.int64(c2), np.int64(c3)


@once
def uniform_words(w0, w1):
    """A float in [0, 1) with 53 random bits from two words (as `uniform`)."""
    return float((w0 << np.uint64(21)) ^ (w1 >> np.uint64(11))) * _INV_2_53


@once
def die_word(word, sides, seed, skirmish, rnd, site, actor, k):
    """Die k of a blocked site from its word (word k % 4 of block k // 4), unbiased: a
    rejected word gives way to the same word of the block under the next retry counter.
    The rejection threshold is divided out only when the low product is below `sides`
    (it always is below: Lemire 2019, "Fast random integer generation in an interval")."""
    n = np.uint64(sides)
    m = np.uint64(word) * n
    if (m & _M32) >= n:
        return np.int64(m >> _U32) + 1
    threshold = (_TWO_POW_32 - n) % n
    r = _lemire(np.uint64(word), n, threshold)
    retry = 1
    while r < 0 and retry < 16:
        w = _words(seed, skirmish, rnd, site, actor, k // 4, retry)
        r = _lemire(w[k % 4], n, threshold)
        retry += 1
    return r if r > 0 else np.int64(1)  # sixteen rejections in a row: unreachable in practice


@once
def die4(sides, seed, skirmish, rnd, site, actor, k):
    """Die k of a blocked site (1..sides)."""
    w = _words(seed, skirmish, rnd, site, actor, k // 4, 0)
    return die_word(w[k % 4], sides, seed, skirmish, rnd, site, actor, k)


@once
def dice4(count, sides, bonus, seed, skirmish, rnd, site, actor, k0):
    """count d sides + bonus on a blocked site, die j being number k0 + j: one evaluation
    per four dice."""
    total = np.int64(bonus)
    zero = np.uint64(0)
    w = (zero, zero, zero, zero)
    b = -1
    for j in range(count):
        k = k0 + j
        if k // 4 != b:
            b = k // 4
            w = _words(seed, skirmish, rnd, site, actor, b, 0)
        total += die_word(w[k % 4], sides, seed, skirmish, rnd, site, actor, k)
    return total


@once
def pick(count, seed, skirmish, rnd, site, actor, k):
    """An index in 0..count-1, uniformly (count >= 1)."""
    return die(count, seed, skirmish, rnd, site, actor, k) - 1


def check_key(seed: int, skirmish_end: int) -> None:
    """Refuse runs the counter layout cannot tell apart (ValueError for the caller to word)."""
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed {seed} must be a whole number from 0 to 2**64 - 1")
    if skirmish_end > MAX_SKIRMISH:
        raise ValueError(f"skirmish indices reach {skirmish_end:,}; keyed randomness tells apart at most "
                         f"{MAX_SKIRMISH:,} skirmishes a seed")


@njit(cache=True, nogil=True)
def uniforms(seed, skirmish, rnd, site, actor, count):
    """`count` uniforms with k = 0..count-1, as an array (tests and Python callers)."""
    out = np.empty(count)
    for k in range(count):
        out[k] = uniform(seed, skirmish, rnd, site, actor, k)
    return out


@njit(cache=True, nogil=True)
def dice_grid(sides, seed, skirmishes, rnd, site, actor, count):
    """(skirmishes, count) rolls of one die, skirmish i keyed i, k = column (tests)."""
    out = np.empty((skirmishes, count), dtype=np.int64)
    for i in range(skirmishes):
        for k in range(count):
            out[i, k] = die(sides, seed, i, rnd, site, actor, k)
    return out


@njit(cache=True, nogil=True)
def philox_words(c0, c1, c2, c3, k0, k1):
    """The four output words for a raw counter and key (known-answer tests)."""
    w = philox4x32(np.uint64(c0), np.uint64(c1), np.uint64(c2), np.uint64(c3), np.uint64(k0), np.uint64(k1))
    out = np.empty(4, dtype=np.uint64)
    out[0], out[1], out[2], out[3] = w
    return out


@njit(cache=True, nogil=True)
def dice4_grid(sides, seed, skirmishes, rnd, site, actor, count):
    """(skirmishes, count) numbers k = column of a blocked site, skirmish i keyed i (tests)."""
    out = np.empty((skirmishes, count), dtype=np.int64)
    for i in range(skirmishes):
        for k in range(count):
            out[i, k] = die4(sides, seed, i, rnd, site, actor, k)
    return out


@njit(cache=True, nogil=True)
def die_words_grid(words, sides, seed, skirmish, rnd, site, actor):
    """die_word of each word as number k = its index (tests)."""
    out = np.empty(len(words), dtype=np.int64)
    for k in range(len(words)):
        out[k] = die_word(words[k], sides, seed, skirmish, rnd, site, actor, k)
    return out


@njit(cache=True, nogil=True)
def blocks_words(seed, skirmish, rnd, site, actors, b):
    """blocks_into for the given actors, as a (4, len(actors)) array (tests)."""
    out = np.empty((4, len(actors)), dtype=np.int64)
    blocks_into(out, actors, len(actors), np.uint64(seed), skirmish, rnd, site, b)
    return out


@njit(cache=True, nogil=True)
def first_word_dice(sides, seed, skirmish, rnd, site, actors, k):
    """die_first_word of each actor's roll k through blocks_into (tests)."""
    words = np.empty((4, len(actors)), dtype=np.int64)
    blocks_into(words, actors, len(actors), np.uint64(seed), skirmish, rnd, site, k)
    out = np.empty(len(actors), dtype=np.int64)
    for j in range(len(actors)):
        out[j] = die_first_word(words[0, j], sides, seed, skirmish, rnd, site, actors[j], k)
    return out


@njit(cache=True, nogil=True)
def dice4_sum(count, sides, bonus, seed, skirmish, rnd, site, actor, k0):
    return dice4(count, sides, bonus, seed, skirmish, rnd, site, actor, k0)


@njit(cache=True, nogil=True)
def block_words(seed, skirmish, rnd, site, actor, b):
    """The four words of a block, as an array (tests)."""
    w = block(np.uint64(seed), skirmish, rnd, site, actor, b)
    out = np.empty(4, dtype=np.uint64)
    out[0], out[1], out[2], out[3] = w
    return out
