"""Sizes as C: sympy expressions over the symbolic sizes, printed as C evaluates them on
int64_t (the contract's extents), with the symbols renamed to the entry's scalars."""
import sympy

from .errors import ExportError

try:  # torch's own integer functions in shape expressions
    from torch.utils._sympy.functions import CleanDiv, FloorDiv, ModularIndexing, Mod as TMod
except ImportError:  # pragma: no cover - older layouts
    CleanDiv = FloorDiv = ModularIndexing = TMod = None


def as_expr(size):
    """A size (int or SymInt) as a sympy expression."""
    import torch
    if isinstance(size, torch.SymInt):
        return size.node.expr
    return sympy.Integer(int(size))


def is_const(e, value=None):
    e = sympy.sympify(e)
    return e.is_Integer and (value is None or int(e) == value)


class Printer:
    """Prints size expressions with symbols renamed (names: {symbol name: C name})."""

    def __init__(self, names):
        self.names = names
        self.used = set()

    def __call__(self, e):
        return self.c(sympy.sympify(e))

    def c(self, e):
        if e.is_Integer:
            return str(int(e))
        if e.is_Symbol:
            name = self.names.get(str(e))
            if name is None:
                raise ExportError("a size depends on %s, which no input dimension names" % e)
            self.used.add(name)
            return name
        if e.is_Add:
            terms = sorted(e.args, key=lambda a: (a.is_Integer, str(a)))
            out = self.c(terms[0])
            for t in terms[1:]:
                if t.could_extract_minus_sign():
                    out += " - " + self.atom(-t)
                else:
                    out += " + " + self.atom(t)
            return out
        if e.is_Mul:
            coeff, rest = e.as_coeff_Mul()
            factors = [self.atom(f) for f in sympy.Mul.make_args(rest)]
            if coeff == -1:
                return "-" + " * ".join(factors)
            if coeff != 1:
                factors.insert(0, self.atom(coeff))
            return " * ".join(factors)
        if e.is_Pow and e.exp.is_Integer and int(e.exp) > 0:
            return " * ".join([self.atom(e.base)] * int(e.exp))
        if FloorDiv is not None and isinstance(e, (FloorDiv, CleanDiv)):
            return "%s / %s" % (self.atom(e.args[0]), self.atom(e.args[1]))
        if TMod is not None and isinstance(e, TMod) or isinstance(e, sympy.Mod):
            return "%s %% %s" % (self.atom(e.args[0]), self.atom(e.args[1]))
        if ModularIndexing is not None and isinstance(e, ModularIndexing):
            return "(%s / %s) %% %s" % (self.atom(e.args[0]), self.atom(e.args[1]), self.atom(e.args[2]))
        if isinstance(e, (sympy.Max, sympy.Min)):
            a, b = e.args[0], sympy.Max(*e.args[1:]) if isinstance(e, sympy.Max) else sympy.Min(*e.args[1:])
            op = ">" if isinstance(e, sympy.Max) else "<"
            return "(%s %s %s ? %s : %s)" % (self.c(a), op, self.c(b), self.c(a), self.c(b))
        raise ExportError("a size expression the exporter cannot write as C: %s" % e)

    def atom(self, e):
        text = self.c(sympy.sympify(e))
        if all(ch.isalnum() or ch == "_" for ch in text):
            return text
        return "(%s)" % text
