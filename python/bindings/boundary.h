// How values cross between Python and dsgd's C++, in one place: a config as Python's dict into the
// config codec's table, a run's summary.json out as Python objects, tensors both ways through
// DLPack (no copy, and no link to torch's Python library), and dsgd's C++ errors into the Python
// exception classes of python/dsgd/_errors.py, one class per C++ type.
#pragma once

#include <pybind11/pybind11.h>
#include <toml++/toml.h>
#include <torch/torch.h>

#include <exception>
#include <nlohmann/json.hpp>

namespace dsgd {

// A dict of config keys (dotted names or nested dicts; bools, numbers, strings, lists, NumPy or
// torch scalars; None leaves the key out) as the table train/config_table.h reads. Raises
// TypeError naming the key for any other value.
toml::table config_table(const pybind11::dict& keys);

// JSON as Python's values: dicts, lists, str, int, float, bool, None.
pybind11::object python_value(const nlohmann::json& value);

// The Python exception for a caught C++ one: dsgd._errors' class of its type (ConfigError,
// DataError, DivergedError, CollapsedError, HangError, RunInterrupted, DsgdError), made with the
// message, hint and exit code that core/error_report.h gives it.
pybind11::object python_error(std::exception_ptr error);

// Makes every dsgd error (and LibTorch's, and any other std::exception that is not pybind11's own)
// that leaves a binding raise python_error's exception.
void translate_errors();

// A tensor from torch.utils.dlpack.to_dlpack(t) (sharing t's memory), and one for from_dlpack.
at::Tensor tensor_from_python(const pybind11::capsule& dlpack);
pybind11::capsule tensor_to_python(const at::Tensor& tensor);

}  // namespace dsgd
