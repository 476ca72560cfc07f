"""Stand-ins for the numpy values verl's parquet rows carry (np.int64, np.float64, np.str_,
object arrays): they behave like numpy's for JSON conversion (.tolist(), .item(); np.float64 and
np.str_ subclass float and str) without numpy, which these stdlib-only tests do not import."""


class Int64:
    def __init__(self, v):
        self.v = int(v)

    def item(self):
        return self.v

    def tolist(self):
        return self.v

    def __repr__(self):
        return "np.int64(%d)" % self.v

    __str__ = lambda self: str(self.v)  # what json.dumps(default=str) sent before: "7"


class Float64(float):
    def item(self):
        return float(self)

    def tolist(self):
        return float(self)


class Str(str):
    def item(self):
        return str(self)

    def tolist(self):
        return str(self)


class Array:
    def __init__(self, items):
        self.items = list(items)

    def tolist(self):
        return [x.tolist() if hasattr(x, "tolist") else x for x in self.items]

    def __len__(self):
        return len(self.items)


def convert(x):
    """Turns {"$np": "int64"|"float64"|"str"|"array", "v": ...} markers into the stand-ins."""
    if isinstance(x, dict):
        if "$np" in x:
            kind, v = x["$np"], x["v"]
            if kind == "int64":
                return Int64(v)
            if kind == "float64":
                return Float64(v)
            if kind == "str":
                return Str(v)
            return Array(convert(i) for i in v)
        return {k: convert(v) for k, v in x.items()}
    if isinstance(x, list):
        return [convert(v) for v in x]
    return x
