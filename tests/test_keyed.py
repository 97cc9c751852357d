"""The keyed generator: known answers, fair dice, no bias, no correlation between neighbouring keys."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim import keyed


def test_philox_known_answers():
    # Random123's kat_vectors for philox4x32_10.
    m = 0xFFFFFFFF
    cases = [((0, 0, 0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
             ((m, m, m, m, m, m), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
             ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0),
              (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for args, want in cases:
        assert tuple(int(w) for w in keyed.philox_words(*args)) == want


def _chi_square_z(counts: np.ndarray) -> float:
    # Standardised chi-square statistic against equal cells: about N(0, 1) for a fair die.
    expected = counts.sum() / len(counts)
    stat = ((counts - expected) ** 2 / expected).sum()
    df = len(counts) - 1
    return (stat - df) / math.sqrt(2 * df)


@pytest.mark.parametrize("sides", [2, 3, 4, 6, 8, 10, 12, 20, 100])
def test_every_face_equally_often(sides):
    rolls = keyed.dice_grid(sides, 2026, 20_000, 3, 7, 1, 10)
    assert rolls.min() == 1 and rolls.max() == sides
    counts = np.bincount(rolls.ravel(), minlength=sides + 1)[1:]
    assert abs(_chi_square_z(counts)) < 5


def test_no_modulo_bias_on_a_huge_die():
    # A die of 3 * 2**30 sides: taking a 32-bit word modulo the sides would give the first
    # third of the faces twice the chance of the rest (a half of all rolls, not a third).
    sides = 3 * 2**30
    rolls = keyed.dice_grid(sides, 7, 30_000, 1, 1, 0, 1).ravel()
    share = (rolls <= 2**30).mean()
    se = math.sqrt(1 / 3 * 2 / 3 / len(rolls))
    assert abs(share - 1 / 3) < 4 * se


def test_uniforms_are_in_the_unit_interval_with_the_right_moments():
    u = keyed.uniforms(1, 2, 3, 4, 5, 200_000)
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 4 * math.sqrt(1 / 12 / len(u))
    assert abs(u.var() - 1 / 12) < 0.002


def _grid(vary: str, n: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """Uniforms at n keys and at the keys one step further along one component."""
    base = dict(seed=11, skirmish=1000, rnd=5, site=9, actor=3, k=2)
    a, b = np.empty(n), np.empty(n)
    for i in range(n):
        key = dict(base)
        key["skirmish"] = base["skirmish"] + i * 7919 if vary != "skirmish" else base["skirmish"] + 2 * i
        a[i] = _u(key)
        key[vary] += 1
        b[i] = _u(key)
    return a, b


def _u(key: dict) -> float:
    return keyed.uniform.py_func(np.uint64(key["seed"]), key["skirmish"], key["rnd"], key["site"], key["actor"],
                                 key["k"])


@pytest.mark.parametrize("vary", ["seed", "skirmish", "rnd", "site", "actor", "k"])
def test_neighbouring_keys_are_uncorrelated(vary):
    a, b = _grid(vary, 5_000)
    r = np.corrcoef(a, b)[0, 1]
    assert abs(r) < 4 / math.sqrt(len(a))
    assert not np.any(a == b)


def test_a_number_is_a_pure_function_of_its_key():
    first = [keyed.die.py_func(20, np.uint64(5), 17, 2, 4, 1, k) for k in range(50)]
    # Any other numbers drawn in between change nothing.
    keyed.uniforms(5, 17, 2, 4, 1, 1000)
    again = [keyed.die.py_func(20, np.uint64(5), 17, 2, 4, 1, k) for k in reversed(range(50))]
    assert first == again[::-1]


def test_dice_sum_their_dice_and_bonus():
    total = keyed.dice.py_func(3, 6, 2, np.uint64(9), 4, 1, 5, 2, 10)
    parts = [keyed.die.py_func(6, np.uint64(9), 4, 1, 5, 2, 10 + j) for j in range(3)]
    assert total == sum(parts) + 2


def test_skirmish_indices_beyond_32_bits_are_told_apart():
    low = keyed.uniform.py_func(np.uint64(1), 5, 1, 1, 1, 0)
    high = keyed.uniform.py_func(np.uint64(1), 5 + 2**32, 1, 1, 1, 0)
    assert low != high
    with pytest.raises(ValueError):
        keyed.check_key(1, keyed.MAX_SKIRMISH + 1)


# --- blocked sites: four numbers from one evaluation ---

def test_a_block_is_the_philox_evaluation_of_its_counter():
    # Block b of (site, actor) is the counter with k = b: known answers through philox_words.
    seed, skirmish, rnd, site, actor, b = 2**40 + 3, 12, 4, 30, 5, 2
    c2 = site << keyed.ACTOR_BITS | actor
    want = keyed.philox_words(skirmish, rnd, c2, b, seed & 0xFFFFFFFF, seed >> 32)
    np.testing.assert_array_equal(keyed.block_words(seed, skirmish, rnd, site, actor, b), want)
    zero = keyed.philox_words(0, 0, 0, 0, 0, 0)
    assert tuple(int(w) for w in keyed.block_words(0, 0, 0, 0, 0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                                         0x9B00DBD8) == tuple(int(w) for w in zero)


def test_die_k_of_a_block_is_word_k_mod_4_of_block_k_div_4():
    seed, sk, rnd, site, actor = np.uint64(77), 5, 3, 30, 2
    for k in range(12):
        words = keyed.block_words(77, sk, rnd, site, actor, k // 4)
        want = (int(words[k % 4]) * 6 >> 32) + 1  # 6 sides: the biased sliver is 4 words in 2**32
        assert keyed.die4.py_func(6, seed, sk, rnd, site, actor, k) == want
        assert keyed.die_word.py_func(words[k % 4], 6, seed, sk, rnd, site, actor, k) == want


def test_a_rejected_word_gives_way_to_the_same_word_of_the_next_retry():
    # A die of 2**31 + 1 sides rejects almost half of all words: each number still comes
    # out in range and unbiased (its halves equally often).
    sides = 2**31 + 1
    rolls = keyed.dice4_grid(sides, 3, 20_000, 1, 30, 0, 4).ravel()
    assert rolls.min() >= 1 and rolls.max() <= sides
    share = (rolls <= sides // 2).mean()
    assert abs(share - 0.5) < 4 * math.sqrt(0.25 / len(rolls))


@pytest.mark.parametrize("sides", [2, 4, 6, 8, 20, 100])
def test_every_face_equally_often_in_blocks(sides):
    rolls = keyed.dice4_grid(sides, 2026, 20_000, 3, 30, 1, 8)
    assert rolls.min() == 1 and rolls.max() == sides
    for k in range(4):  # every word position is fair on its own
        counts = np.bincount(rolls[:, k], minlength=sides + 1)[1:]
        assert abs(_chi_square_z(counts)) < 5


def test_the_four_words_of_a_block_are_uncorrelated():
    rolls = keyed.dice4_grid(1000, 11, 40_000, 2, 30, 3, 8).astype(float)
    corr = np.corrcoef(rolls.T)
    off = corr[~np.eye(8, dtype=bool)]
    assert np.abs(off).max() < 4 / math.sqrt(len(rolls))
    # and a block's dice against the same key's unblocked die
    plain = keyed.dice_grid(1000, 11, 40_000, 2, 31, 3, 1)[:, 0].astype(float)
    assert abs(np.corrcoef(plain, rolls[:, 0])[0, 1]) < 4 / math.sqrt(len(rolls))


def test_blocked_dice_sum_their_dice_and_bonus():
    total = keyed.dice4_sum(7, 6, 2, np.uint64(9), 4, 1, 30, 2, 3)
    parts = [keyed.die4.py_func(6, np.uint64(9), 4, 1, 30, 2, 3 + j) for j in range(7)]
    assert total == sum(parts) + 2
    assert keyed.dice4_sum(0, 6, 5, np.uint64(9), 4, 1, 30, 2, 3) == 5


def _textbook_die_word(word, sides, seed, skirmish, rnd, site, actor, k):
    """Lemire's method as written, dividing for the rejection threshold on every word."""
    threshold = ((1 << 32) - sides) % sides
    for retry in range(16):
        if retry:
            word = int(keyed._words.py_func(np.uint64(seed), skirmish, rnd, site, actor, k // 4, retry)[k % 4])
        m = int(word) * sides
        if m & 0xFFFFFFFF >= threshold:
            return (m >> 32) + 1
    return 1


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 20, 100])
def test_the_blocked_die_is_lemires_die(sides):
    # die_word divides for the threshold only when the low product is below `sides`: the
    # words near each multiple of 2**32 / sides, and those below it, are where that differs.
    rng = np.random.default_rng(sides)
    step = (1 << 32) // sides
    words = np.concatenate([rng.integers(0, 1 << 32, 3000, dtype=np.uint64), np.arange(64, dtype=np.uint64),
                            (1 << 32) - 1 - np.arange(64, dtype=np.uint64),
                            np.array([j * step + d for j in range(sides) for d in (0, 1)], dtype=np.uint64)])
    got = keyed.die_words_grid(words, sides, 99, 5, 2, 30, 1)
    want = [_textbook_die_word(w, sides, 99, 5, 2, 30, 1, k) for k, w in enumerate(words)]
    np.testing.assert_array_equal(got, want)


def test_blocks_into_gives_each_block():
    actors = np.array([0, 3, 7, 2**20 - 1, 5], dtype=np.int64)
    for seed, sk, rnd, site, blk in [(0, 0, 0, 0, 0), (2**62 + 3, 2**40 - 1, 7, 30, 2), (99, 2**33 + 5, 100, 1, 9)]:
        got = keyed.blocks_words(seed, sk, rnd, site, actors, blk)
        for j, a in enumerate(actors):
            np.testing.assert_array_equal(got[:, j].astype(np.uint64), keyed.block_words(seed, sk, rnd, site, a, blk))


@pytest.mark.parametrize("sides", [3, 20])
def test_a_die_from_its_first_word_is_the_die(sides):
    actors = np.arange(0, 4000, 3, dtype=np.int64)
    got = keyed.first_word_dice(sides, 17, 2**35 + 9, 0, 1, actors, 0)
    np.testing.assert_array_equal(got, [keyed.die(sides, 17, 2**35 + 9, 0, 1, int(a), 0) for a in actors])
