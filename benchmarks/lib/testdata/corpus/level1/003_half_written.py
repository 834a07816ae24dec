ENTRY = "half_written"


def forward(x, *, N):
    return (2 * x,)
