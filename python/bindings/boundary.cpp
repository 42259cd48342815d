// The conversions of boundary.h.
#include "boundary.h"

#include <ATen/DLConvertor.h>

#include <string>

#include "core/error_report.h"
#include "core/errors.h"

namespace py = pybind11;

namespace dsgd {
namespace {

toml::array config_array(const std::string& path, const py::handle& values);
void insert(toml::table& table, const std::string& path, const std::string& key,
            const py::handle& value);

// `value` given to `add`: scalars as themselves, lists as arrays, dicts as tables. `path` (the
// key's dotted name) names it in the TypeError for anything else.
template <class Add>
void add_value(const std::string& path, const py::handle& value, Add add) {
  if (py::isinstance<py::bool_>(value)) {
    add(value.cast<bool>());
  } else if (py::isinstance<py::int_>(value)) {
    add(value.cast<int64_t>());
  } else if (py::isinstance<py::float_>(value)) {
    add(value.cast<double>());
  } else if (py::isinstance<py::str>(value)) {
    add(value.cast<std::string>());
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    add(config_array(path, value));
  } else if (py::isinstance<py::dict>(value)) {
    toml::table table;
    for (const auto& [name, item] : value.cast<py::dict>()) {
      const std::string key = py::str(name).cast<std::string>();
      insert(table, path + "." + key, key, item);
    }
    add(std::move(table));
  } else if (py::hasattr(value, "item") && py::hasattr(value, "ndim") &&
             value.attr("ndim").cast<int>() == 0) {
    add_value(path, value.attr("item")(), add);  // a NumPy or torch scalar
  } else if (py::hasattr(value, "__fspath__")) {
    add(py::str(value.attr("__fspath__")()).cast<std::string>());
  } else {
    throw py::type_error("config key '" + path +
                         "': a value must be a bool, number, string, list or dict, not " +
                         std::string(py::str(py::type::handle_of(value).attr("__name__"))) + " (" +
                         std::string(py::repr(value)) + ")");
  }
}

toml::array config_array(const std::string& path, const py::handle& values) {
  toml::array array;
  for (const py::handle& value : values) {
    add_value(path, value, [&array](auto&& v) { array.push_back(std::move(v)); });
  }
  return array;
}

void insert(toml::table& table, const std::string& path, const std::string& key,
            const py::handle& value) {
  if (value.is_none()) return;
  add_value(path, value, [&table, &key](auto&& v) { table.insert_or_assign(key, std::move(v)); });
}

// Whether `error` is an E (or derived from it).
template <class E>
bool is_a(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
}

// The name in dsgd._errors of the class for a C++ error: the first its type matches, most
// derived types first; DsgdError for any other.
const char* python_class_of(std::exception_ptr error) {
  struct Match {
    bool (*matches)(std::exception_ptr);
    const char* name;
  };
  static constexpr Match kClasses[] = {{is_a<InterruptedError>, "RunInterrupted"},
                                       {is_a<HangError>, "HangError"},
                                       {is_a<CollapsedError>, "CollapsedError"},
                                       {is_a<DivergedError>, "DivergedError"},
                                       {is_a<DataError>, "DataError"},
                                       {is_a<ConfigError>, "ConfigError"}};
  for (const Match& match : kClasses) {
    if (match.matches(error)) return match.name;
  }
  return "DsgdError";
}

}  // namespace

toml::table config_table(const py::dict& keys) {
  toml::table table;
  for (const auto& [name, value] : keys) {
    const std::string key = py::str(name).cast<std::string>();
    insert(table, key, key, value);
  }
  return table;
}

py::object python_value(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [key, item] : value.items()) d[py::str(key)] = python_value(item);
      return py::object(std::move(d));
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& item : value) l.append(python_value(item));
      return py::object(std::move(l));
    }
    case nlohmann::json::value_t::string:
      return py::str(value.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return py::int_(value.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return py::int_(value.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return py::float_(value.get<double>());
    default:
      return py::none();
  }
}

py::object python_error(std::exception_ptr error) {
  const ErrorReport report = report_error(error);
  py::object errors = py::module_::import("dsgd._errors");
  return errors.attr(python_class_of(error))(report.message, report.hint, report.exit_code);
}

void translate_errors() {
  py::register_exception_translator([](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (TypeError, ...): its translator raises them
    } catch (const py::error_already_set&) {
      throw;
    } catch (...) {
      const py::object exception = python_error(std::current_exception());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
    }
  });
}

at::Tensor tensor_from_python(const py::capsule& dlpack) {
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(dlpack.ptr(), "dltensor"));
  if (managed == nullptr) throw py::error_already_set();
  // The tensor owns it now (its deleter runs when the tensor goes); the capsule is spent.
  PyCapsule_SetName(dlpack.ptr(), "used_dltensor");
  return at::fromDLPack(managed);
}

py::capsule tensor_to_python(const at::Tensor& tensor) {
  DLManagedTensor* managed = at::toDLPack(tensor);
  // A capsule never consumed (from_dlpack renames a consumed one) frees the tensor itself.
  return py::capsule(managed, "dltensor", [](PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
      auto* unused = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      unused->deleter(unused);
    }
  });
}

}  // namespace dsgd
