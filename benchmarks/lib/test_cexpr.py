"""Tests of the C expression evaluator (benchmarks/lib/cexpr.py).

Run: python3 -m unittest discover benchmarks/lib
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cexpr  # noqa: E402


def ev(text, **env):
    return cexpr.parse(text).evaluate(env)


class CSemantics(unittest.TestCase):
    def test_division_truncates_toward_zero(self):
        self.assertEqual(ev("7 / 2"), 3)
        self.assertEqual(ev("-7 / 2"), -3)      # Python's // would give -4
        self.assertEqual(ev("7 / -2"), -3)
        self.assertEqual(ev("-7 / -2"), 3)

    def test_modulo_takes_the_dividends_sign(self):
        self.assertEqual(ev("-7 % 2"), -1)      # Python's % would give 1
        self.assertEqual(ev("7 % -2"), 1)
        self.assertEqual(ev("-8 % 4"), 0)

    def test_precedence_is_cs(self):
        self.assertEqual(ev("1 + 2 * 3"), 7)
        self.assertEqual(ev("(1 + 2) * 3"), 9)
        self.assertEqual(ev("1 & 2 == 2"), 1)   # C: 1 & (2 == 2); Python: (1 & 2) == 2 -> False
        self.assertEqual(ev("2 < 3 < 1"), 0)    # C: (2 < 3) < 1 = 1 < 1 = 0
        self.assertEqual(ev("3 > 2 > 1"), 0)    # C: (3 > 2) > 1 = 1 > 1 = 0; Python chains to True
        self.assertEqual(ev("1 << 2 + 1"), 8)
        self.assertEqual(ev("10 - 4 - 3"), 3)   # left-associative
        self.assertEqual(ev("100 / 10 / 5"), 2)

    def test_logic_and_ternary(self):
        self.assertEqual(ev("K % 4 == 0 && H >= 2", K=8, H=2), 1)
        self.assertEqual(ev("K % 4 == 0 && H >= 2", K=6, H=2), 0)
        self.assertEqual(ev("!K || 1", K=0), 1)
        self.assertEqual(ev("a ? 1 : 2 ? 3 : 4", a=0), 3)
        self.assertEqual(ev("0 && 1 / 0"), 0)   # short-circuit: no division by zero
        self.assertEqual(ev("~0"), -1)

    def test_extents_over_scalars(self):
        self.assertEqual(cexpr.parse("(N + 255) / 256").evaluate_int({"N": 1000}), 4)
        self.assertEqual(cexpr.parse("B * (H - K + 1) / S").evaluate_int({"B": 2, "H": 9, "K": 3, "S": 2}), 7)

    def test_literals(self):
        self.assertEqual(ev("0x10 + 3u + 2L"), 21)
        self.assertEqual(ev("1.5e-3 * 2"), 0.003)
        self.assertEqual(ev("1 / 2.0"), 0.5)    # a floating operand makes it floating
        self.assertEqual(ev("1 / 2"), 0)
        self.assertEqual(ev("eps > 0", eps=1e-5), 1)

    def test_names(self):
        self.assertEqual([n for n, _ in cexpr.parse("B * K + N").names()], ["B", "K", "N"])

    def test_errors_carry_columns(self):
        cases = {"1 +": 3, "(1": 2, "f(2)": 0, "$": 0, "1 / 0": 2, "": 0, "1 2": 2, "010": 0}
        for text, col in cases.items():
            with self.subTest(text=text):
                with self.assertRaises(cexpr.ExprError) as cm:
                    cexpr.parse(text).evaluate({})
                self.assertEqual(cm.exception.col, col)

    def test_overflow_and_unknown_names(self):
        with self.assertRaises(cexpr.ExprError):
            ev("9223372036854775807 + 1")
        with self.assertRaises(cexpr.ExprError):
            ev("N + 1")
        with self.assertRaises(cexpr.ExprError):
            cexpr.parse("1.5").evaluate_int({})
        with self.assertRaises(cexpr.ExprError):
            ev("1.5 % 2")

    def test_no_python_evaluation(self):
        for text in ("__import__('os')", "[1]", "N.real", "'a'", "lambda: 1"):
            with self.subTest(text=text):
                with self.assertRaises(cexpr.ExprError):
                    cexpr.parse(text).evaluate({"N": 1})


if __name__ == "__main__":
    unittest.main()
