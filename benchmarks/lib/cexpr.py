"""C integer/floating expressions, parsed and evaluated the way C evaluates them.

The kfuse contract writes extents (`float[B][(K + 3) / 4]`), `assume` facts
(`K % 4 == 0 && H >= 2`) and `init` bounds (`int(0,C)`) as C expressions over the entry's
scalar parameters. This module turns such text into a small syntax tree and evaluates it
with C's rules, never with Python's `eval`:

- integers are 64-bit signed: `/` truncates toward zero, `%` takes the sign of the
  dividend, and a result outside int64 is an error (C leaves signed overflow undefined);
- an operation with a floating operand is done in floating point (double);
- comparisons and `&&`, `||`, `!` give the int 0 or 1; `&&`, `||` and `?:` short-circuit;
- operator precedence is C's (for example `a & b == c` is `a & (b == c)`, unlike Python).

Unsigned types are not modelled: every integer is treated as int64_t.

    >>> parse("(N + 255) / 256").evaluate({"N": 1000})
    4
    >>> parse("-7 / 2").evaluate({}), parse("-7 % 2").evaluate({})
    (-3, -1)
"""

import re

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


class ExprError(Exception):
    """A malformed expression or a failed evaluation. `col` is the 0-based column of the
    offending token in the expression text, when known."""

    def __init__(self, message, col=None):
        super().__init__(message)
        self.col = col


# ---------------------------------------------------------------------------------------
# Tokens

# Order matters: longer operators first, floating literals before integers.
_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?)
  | (?P<int>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op>\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%()<>!~&|^?:])
""", re.VERBOSE)


def _tokenize(text):
    """Yields (kind, value, col) triples and a final ('end', None, len(text))."""
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ExprError("unexpected character %r in expression" % text[pos], pos)
        kind = m.lastgroup
        if kind != "ws":
            raw = m.group(kind)
            if kind == "int":
                digits = raw.rstrip("uUlL")
                value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 10)
                # C reads a leading-zero literal as octal; reject it rather than guess.
                if len(digits) > 1 and digits[0] == "0" and digits[1] not in "xX":
                    raise ExprError("octal literal %r is not supported" % raw, pos)
            elif kind == "float":
                value = float(raw.rstrip("fFlL"))
            else:
                value = raw
            yield kind, value, pos
        pos = m.end()
    yield "end", None, len(text)


# ---------------------------------------------------------------------------------------
# Syntax tree: tuples, evaluated by `_eval`.
#   ("num", value)            literal (int or float)
#   ("var", name, col)        scalar parameter
#   ("un", op, operand)       unary + - ! ~
#   ("bin", op, lhs, rhs, col)
#   ("cond", test, a, b)      test ? a : b

# Binary operators and their C precedence (higher binds tighter). All left-associative.
_BINARY = {
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8,
    "==": 9, "!=": 9, "<": 10, "<=": 10, ">": 10, ">=": 10,
    "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13, "/": 13, "%": 13,
}
_TERNARY_PREC = 3


class _Parser:
    """A precedence-climbing parser over the token stream."""

    def __init__(self, text):
        self.text = text
        self.tokens = list(_tokenize(text))
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def take(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, value):
        kind, val, col = self.take()
        if kind != "op" or val != value:
            raise ExprError("expected %r" % value, col)

    def parse(self):
        if self.peek()[0] == "end":
            raise ExprError("empty expression", 0)
        node = self.expression(0)
        kind, _, col = self.peek()
        if kind != "end":
            raise ExprError("unexpected %r after expression" % self.text[col:], col)
        return node

    def expression(self, min_prec):
        lhs = self.unary()
        while True:
            kind, op, col = self.peek()
            if kind != "op":
                return lhs
            if op == "?" and _TERNARY_PREC >= min_prec:
                self.take()
                a = self.expression(0)
                self.expect(":")
                b = self.expression(_TERNARY_PREC)  # right-associative
                lhs = ("cond", lhs, a, b)
                continue
            prec = _BINARY.get(op)
            if prec is None or prec < min_prec:
                return lhs
            self.take()
            rhs = self.expression(prec + 1)
            lhs = ("bin", op, lhs, rhs, col)

    def unary(self):
        kind, val, col = self.take()
        if kind == "op" and val in ("+", "-", "!", "~"):
            return ("un", val, self.unary())
        if kind == "op" and val == "(":
            node = self.expression(0)
            self.expect(")")
            return node
        if kind in ("int", "float"):
            return ("num", val)
        if kind == "ident":
            if self.peek()[0] == "op" and self.peek()[1] == "(":
                raise ExprError("function calls are not allowed in expressions", col)
            return ("var", val, col)
        if kind == "end":
            raise ExprError("expression ends too early", col)
        raise ExprError("unexpected %r" % val, col)


def _check_int(value, col):
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise ExprError("integer overflow (result does not fit in 64 bits)", col)
    return value


def _c_div(a, b, col):
    if b == 0:
        raise ExprError("division by zero", col)
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)           # truncate toward zero, as C does
    return q if (a >= 0) == (b >= 0) else -q


def _c_mod(a, b, col):
    if isinstance(a, float) or isinstance(b, float):
        raise ExprError("'%' needs integer operands", col)
    if b == 0:
        raise ExprError("division by zero", col)
    return a - b * _c_div(a, b, col)  # sign of the dividend


def _need_int(op, a, b, col):
    if isinstance(a, float) or isinstance(b, float):
        raise ExprError("%r needs integer operands" % op, col)


def _eval(node, env):
    tag = node[0]
    if tag == "num":
        return node[1]
    if tag == "var":
        name, col = node[1], node[2]
        if name not in env:
            raise ExprError("unknown name %r" % name, col)
        return env[name]
    if tag == "un":
        op, v = node[1], _eval(node[2], env)
        if op == "+":
            return v
        if op == "-":
            return _check_int(-v, None)
        if op == "!":
            return int(not v)
        if isinstance(v, float):
            raise ExprError("'~' needs an integer operand")
        return ~v
    if tag == "cond":
        return _eval(node[2], env) if _eval(node[1], env) else _eval(node[3], env)
    # binary
    op, col = node[1], node[4]
    if op == "&&":
        return int(bool(_eval(node[2], env)) and bool(_eval(node[3], env)))
    if op == "||":
        return int(bool(_eval(node[2], env)) or bool(_eval(node[3], env)))
    a, b = _eval(node[2], env), _eval(node[3], env)
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)  # C's usual arithmetic conversions
    if op == "+":
        return _check_int(a + b, col)
    if op == "-":
        return _check_int(a - b, col)
    if op == "*":
        return _check_int(a * b, col)
    if op == "/":
        return _c_div(a, b, col)
    if op == "%":
        return _c_mod(a, b, col)
    if op in ("<<", ">>", "&", "|", "^"):
        _need_int(op, a, b, col)
        if op == "<<":
            if b < 0 or b >= 64:
                raise ExprError("shift count out of range", col)
            return _check_int(a << b, col)
        if op == ">>":
            if b < 0 or b >= 64:
                raise ExprError("shift count out of range", col)
            return a >> b
        return {"&": a & b, "|": a | b, "^": a ^ b}[op]
    return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b,
                ">": a > b, ">=": a >= b}[op])


def _names(node, out):
    if node[0] == "var":
        out.append((node[1], node[2]))
    else:
        for child in node[1:]:
            if isinstance(child, tuple):
                _names(child, out)
    return out


class Expr:
    """A parsed C expression. `text` is the source; `names()` lists the identifiers it
    uses with their columns; `evaluate(env)` computes it over a dict of scalar values
    (Python int for integer parameters, float for floating ones)."""

    def __init__(self, text, tree):
        self.text = text
        self.tree = tree

    def names(self):
        return _names(self.tree, [])

    def evaluate(self, env):
        return _eval(self.tree, env)

    def evaluate_int(self, env):
        """Evaluates an expression that must be an integer (an extent)."""
        v = self.evaluate(env)
        if not isinstance(v, int):
            raise ExprError("expression %r is not an integer" % self.text, 0)
        return v

    def __repr__(self):
        return "Expr(%r)" % self.text


def parse(text):
    """Parses `text` as a C expression; raises ExprError (with a column) if malformed."""
    return Expr(text.strip(), _Parser(text).parse())
