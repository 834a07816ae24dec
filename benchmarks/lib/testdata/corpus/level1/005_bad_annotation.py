ENTRY = "bad_annotation"


def forward(x, *, N):
    return (x,)
