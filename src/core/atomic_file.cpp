// Atomic file writes; see atomic_file.h.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/errors.h"

namespace dsgd {

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    throw Error(fmt::format("cannot write {}: {}", temp, std::strerror(errno)),
                "check that the run folder is writable and the disk is not full");
  }
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw Error(fmt::format("cannot write {}: {}", temp, std::strerror(err)),
                  "check free disk space");
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temp.c_str());
    throw Error(fmt::format("cannot flush {}: {}", temp, std::strerror(errno)), "check the disk");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    throw Error(fmt::format("cannot rename {} to {}: {}", temp, path, std::strerror(err)),
                "check the run folder's permissions");
  }
}

}  // namespace dsgd
