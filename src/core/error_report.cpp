// The exception-to-exit-code mapping of error_report.h.
#include "core/error_report.h"

#include <c10/util/Exception.h>

#include "core/errors.h"

namespace dsgd {

ErrorReport report_error(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return {e.exit_code(), e.what(), e.hint()};
  } catch (const c10::Error& e) {
    return {1, e.what_without_backtrace(), "this is a LibTorch error; please report it"};
  } catch (const std::exception& e) {
    return {1, e.what(), ""};
  } catch (...) {
    return {1, "an unknown error", "please report it"};
  }
}

}  // namespace dsgd
