#include "cli/help_pages.hpp"

#include <algorithm>
#include <vector>

#include "cli/output.hpp"
#include "config/target_config.hpp"

namespace neuronsim::cli {

namespace {

std::vector<const CLI::App*> commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Every name an option answers to: -t --target.
std::vector<std::string> option_names(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const auto& s : o.get_snames())
    names.push_back("-" + s);
  for (const auto& l : o.get_lnames())
    names.push_back("--" + l);
  return names;
}

bool visible(const CLI::Option& o) {
  return !o.get_group().empty();
}

// Roff text: backslashes and hyphens escaped, no line starting a request.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

void option_entries(const CLI::App& cmd, std::string& out) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (!visible(*o)) continue;
    std::string head;
    if (o->get_positional()) {
      head = "\\fI" + roff(o->get_name(true)) + "\\fR";
    } else {
      for (const auto& n : option_names(*o))
        head += (head.empty() ? "\\fB" : ", \\fB") + roff(n) + "\\fR";
      if (o->get_type_size() != 0) head += " \\fI" + roff(o->get_type_name()) + "\\fR";
    }
    out += ".TP\n" + head + "\n" + roff(o->get_description()) + "\n";
  }
}

}  // namespace

std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string word = argv[1];
  if (word.empty() || word[0] == '-') return std::nullopt;  // an option: CLI11 checks it
  std::string valid, closest;
  std::size_t best = 3;  // suggest only a command within two edits (or one it begins)
  for (const CLI::App* c : commands(app)) {
    if (c->get_name() == word) return std::nullopt;
    valid += (valid.empty() ? "" : ", ") + c->get_name();
    const std::size_t d = edit_distance(word, c->get_name());
    const bool prefix = c->get_name().rfind(word, 0) == 0;
    if (d < best || (prefix && closest.empty())) best = d, closest = c->get_name();
  }
  std::string text = "unknown command '" + word + "'";
  if (!closest.empty()) text += "; did you mean '" + closest + "'?";
  return text + "\ncommands: " + valid + " (neuronsim --help says what each does)";
}

std::string bash_completion(const CLI::App& app) {
  std::string names, cases;
  for (const CLI::App* c : commands(app)) {
    names += " " + c->get_name();
    std::string words;
    for (const CLI::App* nested : commands(*c))
      words += " " + nested->get_name();
    for (const CLI::Option* o : c->get_options())
      if (visible(*o) && !o->get_positional())
        for (const auto& n : option_names(*o))
          words += " " + n;
    cases += "    " + c->get_name() + ") words=\"" + words.substr(1) + "\" ;;\n";
  }
  std::string presets;
  for (const auto& p : config::target_names())
    presets += (presets.empty() ? "" : " ") + p;
  return "# bash completion for neuronsim, generated from its command line "
         "(neuronsim --bash-completion FILE).\n"
         "_neuronsim() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= words i\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    [[ ${COMP_WORDS[i]} == -* ]] || { cmd=${COMP_WORDS[i]}; break; }\n"
         "  done\n"
         "  if [[ -z $cmd ]]; then\n"
         "    COMPREPLY=($(compgen -W \"" +
         names.substr(1) +
         " --help --version\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  case $prev in\n"
         "    -t|--target) COMPREPLY=($(compgen -W \"" +
         presets +
         "\" -- \"$cur\") $(compgen -f -- \"$cur\")); return ;;\n"
         "  esac\n"
         "  case $cmd in\n" +
         cases +
         "    *) words= ;;\n"
         "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$words --help\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _neuronsim neuronsim\n";
}

std::string man_page(const CLI::App& app) {
  std::string out =
      ".\\\" Generated from the neuronsim command line (neuronsim --man-page FILE).\n";
  out += ".TH NEURONSIM 1 \"\" \"neuronsim\" \"User Commands\"\n";
  out += ".SH NAME\nneuronsim \\- " + roff("a cycle-approximate simulator of the AWS NeuronCore") +
         "\n";
  out += ".SH SYNOPSIS\n\\fBneuronsim\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n";
  out += ".br\n\\fBneuronsim\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n";
  out += ".SH DESCRIPTION\n" +
         roff(
             "neuronsim runs NEFF-like kernels on a simulated NeuronCore (Trainium, "
             "Inferentia2) with real numerics and reports where the time went; it profiles, "
             "compares and reports on the runs.") +
         "\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* c : commands(app)) {
    out += ".SS \"neuronsim " + roff(c->get_name()) + "\"\n" + roff(c->get_description()) + "\n";
    option_entries(*c, out);
    for (const CLI::App* nested : commands(*c)) {
      out += ".SS \"neuronsim " + roff(c->get_name() + " " + nested->get_name()) + "\"\n" +
             roff(nested->get_description()) + "\n";
      option_entries(*nested, out);
    }
  }
  out += ".SH CONVENTIONS\n" +
         roff(
             "An output file option given - writes to standard output; the command's messages "
             "then go to standard error. Every command that writes a file says so.") +
         "\n";
  out += ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\n" +
         roff(
             "user error: bad usage (unknown command or option, missing argument) or bad "
             "input (a file, kernel or config that is wrong); one line on standard error "
             "names it") +
         "\n.TP\n2\ninternal error\n";
  out += ".SH SEE ALSO\n" +
         roff("README.md and docs/ of the neuronsim sources; docs/cli.md for these conventions.") +
         "\n";
  return out;
}

void add_help_page_options(CLI::App& app) {
  // Hidden (empty group): build tools, not user commands.
  app.add_option_function<std::string>(
         "--bash-completion",
         [&app](const std::string& path) {
           write_output(path, bash_completion(app));
           throw CLI::Success();
         },
         "Write the bash completion script")
      ->group("");
  app.add_option_function<std::string>(
         "--man-page",
         [&app](const std::string& path) {
           write_output(path, man_page(app));
           throw CLI::Success();
         },
         "Write the man page")
      ->group("");
}

}  // namespace neuronsim::cli
