#pragma once
// Where a streamed text output goes: a file (written all-or-nothing) or a string (tests).
#include <string>
#include <string_view>

#include "base/limits.hpp"
#include "traces/output_file.hpp"

namespace neuronsim::traces {

class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void write(std::string_view text) = 0;
  TextSink& operator<<(std::string_view text) {
    write(text);
    return *this;
  }
};

class FileSink : public TextSink {
 public:
  explicit FileSink(OutputFile& file) : file_(file) {}
  void write(std::string_view text) override { file_.write(text); }

 private:
  OutputFile& file_;
};

class StringSink : public TextSink {
 public:
  void write(std::string_view text) override { text_ += text; }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// A string refused as soon as it passes the export_bytes limit (base/limits.hpp), so a
// huge export costs neither unbounded memory nor disk; `what` names it in the error.
class BoundedStringSink : public TextSink {
 public:
  explicit BoundedStringSink(std::string what) : what_(std::move(what)) {}
  void write(std::string_view text) override {
    if (text_.size() + text.size() > limit(Limit::export_bytes))
      check_limit(Limit::export_bytes, text_.size() + text.size(), what_);
    text_ += text;
  }
  const std::string& str() const { return text_; }

 private:
  std::string what_;
  std::string text_;
};

// A JSON string literal (quotes and escapes included).
std::string json_string(std::string_view s);

}  // namespace neuronsim::traces
