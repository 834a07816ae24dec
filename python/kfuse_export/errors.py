"""The exporter's one kind of failure: a message in the compiler's format."""


class ExportError(Exception):
    """An input the exporter cannot take, placed at FILE:LINE:COL where known."""

    def __init__(self, message, file=None, line=0, col=0):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col

    def render(self, default_file):
        where = self.file or default_file
        if self.line:
            where += ":%d:%d" % (self.line, self.col or 1)
        return "%s: error: %s" % (where, self.message)
