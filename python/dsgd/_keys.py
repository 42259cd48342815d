"""Config keys from Python: keyword arguments and dicts become the CLI's `--set KEY=VALUE`
overrides, the values written as TOML, so that a call and a command line with the same keys make
the same config.

Dotted keys (`timing.shape`) are given in the `config` dict, or as keyword arguments with a double
underscore for each dot (`timing__shape=10`).
"""
import json
import math


def toml_value(value):
    """A Python value as TOML text: bools, numbers, strings and (nested) lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: the same escapes
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if hasattr(value, "item"):  # a NumPy or torch scalar
        return toml_value(value.item())
    raise TypeError(f"a config value must be a bool, number, string or list, not "
                    f"{type(value).__name__} ({value!r})")


def key_name(name):
    return name.replace("__", ".")


def overrides(keys):
    """KEY=VALUE strings, in the order given."""
    return [f"{key_name(k)}={toml_value(v)}" for k, v in keys.items() if v is not None]
