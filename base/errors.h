// The exceptions that mean "the input is wrong" (as opposed to a kernel fault or a bug): the
// command line turns every InputError into exit status 3 with its message.
#pragma once

#include <stdexcept>

namespace scgpu {

// A file, config value, launch description or other user input that scgpu refuses; the message
// names where (file:line:col where there is one) and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input that would make scgpu exceed one of its limits (base/input_limits.h); the message names
// the limit, the value and how to raise it.
class LimitError : public InputError {
 public:
  using InputError::InputError;
};

// An output file that could not be written (a full disk, /dev/full, no permission): the run's
// results are not where the user asked, so the command fails (exit status 3) naming the file.
class OutputError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace scgpu
