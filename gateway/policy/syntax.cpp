#include "policy/syntax.hpp"

#include "policy/shape.hpp"

#include <algorithm>
#include <cctype>

namespace signet::policy {

SyntaxError::SyntaxError(size_t position, std::string expected, std::string found)
    : std::runtime_error("syntax error at position " + std::to_string(position) + ": expected " +
                         expected + ", found " + found),
      position(position),
      expected(std::move(expected)),
      found(std::move(found)) {}

namespace {

struct Token {
  enum class Kind { kEnd, kIdent, kNumber, kString, kOp };
  Kind kind = Kind::kEnd;
  std::string text;
  size_t position = 0;
};

std::string describeToken(const Token& t) {
  switch (t.kind) {
    case Token::Kind::kEnd:
      return "end of expression";
    case Token::Kind::kString:
      return "string '" + t.text + "'";
    default:
      return "'" + t.text + "'";
  }
}

std::vector<Token> lex(std::string_view s) {
  static const char* kOps[] = {"&&", "||", "==", "!=", "<=", ">=", "..", "<", ">", "!",
                               "(",  ")",  "[",  "]",  "{",  "}",  ",",  ".", ":"};
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.position = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      t.kind = Token::Kind::kIdent;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_'))
        throw SyntaxError{j, "a digit or an operator", "'" + std::string(1, s[j]) + "'"};
      t.kind = Token::Kind::kNumber;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '\'') {
      size_t j = i + 1;
      std::string text;
      while (j < s.size() && s[j] != '\'') {
        // A backslash escapes the next character (\' and \\); the escapes of the hosted
        // language are not published, so nothing else is special.
        if (s[j] == '\\' && j + 1 < s.size()) ++j;
        text += s[j++];
      }
      if (j >= s.size())
        throw SyntaxError{i, "a closing quote for the string", "end of expression"};
      t.kind = Token::Kind::kString;
      t.text = std::move(text);
      i = j + 1;
    } else {
      bool matched = false;
      for (const char* op : kOps) {
        size_t n = std::char_traits<char>::length(op);
        if (s.substr(i, n) == op) {
          t.kind = Token::Kind::kOp;
          t.text = op;
          i += n;
          matched = true;
          break;
        }
      }
      if (!matched)
        throw SyntaxError{i, "an operator, a name, a number or a string",
                          "'" + std::string(1, c) + "'"};
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.position = s.size();
  out.push_back(end);
  return out;
}

Node::Function functionNamed(const std::string& name) {
  static const std::pair<const char*, Node::Function> kFunctions[] = {
      {"all", Node::Function::kAll},           {"any", Node::Function::kAny},
      {"contains", Node::Function::kContains}, {"filter", Node::Function::kFilter},
      {"count", Node::Function::kCount},
  };
  for (const auto& [text, function] : kFunctions)
    if (name == text) return function;
  return Node::Function::kNone;  // an unknown function: an evaluation error names it
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  NodePtr parseAll() {
    NodePtr e = parseOr();
    if (peek().kind != Token::Kind::kEnd) fail("an operator or the end of the expression");
    return e;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool isOp(const char* op) const { return peek().kind == Token::Kind::kOp && peek().text == op; }
  [[noreturn]] void fail(const std::string& expected) const {
    throw SyntaxError{peek().position, expected, describeToken(peek())};
  }
  Token take() { return tokens_[pos_++]; }
  void expect(const char* op) {
    if (!isOp(op)) fail(std::string("'") + op + "'");
    ++pos_;
  }

  static std::shared_ptr<Node> node(Node::Kind kind, size_t position) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->position = position;
    return n;
  }

  NodePtr binary(const std::string& op, size_t position, NodePtr l, NodePtr r) {
    auto n = node(Node::Kind::kBinary, position);
    n->name = op;
    n->children = {std::move(l), std::move(r)};
    return n;
  }

  // Bounds recursion so that a hostile expression cannot exhaust the stack.
  struct Depth {
    explicit Depth(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxDepth) parser.fail("an expression nested at most 128 deep");
    }
    ~Depth() { --parser.depth_; }
    Parser& parser;
  };
  static constexpr int kMaxDepth = 128;
  int depth_ = 0;

  NodePtr parseOr() {
    Depth guard(*this);
    NodePtr left = parseAnd();
    while (isOp("||")) {
      size_t p = take().position;
      left = binary("||", p, left, parseAnd());
    }
    return left;
  }

  NodePtr parseAnd() {
    NodePtr left = parseComparison();
    while (isOp("&&")) {
      size_t p = take().position;
      left = binary("&&", p, left, parseComparison());
    }
    return left;
  }

  NodePtr parseComparison() {
    NodePtr left = parseUnary();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"})
      if (isOp(op)) {
        size_t p = take().position;
        return binary(op, p, left, parseUnary());
      }
    if (peek().kind == Token::Kind::kIdent && peek().text == "in") {
      size_t p = take().position;
      return binary("in", p, left, parseUnary());
    }
    return left;
  }

  NodePtr parseUnary() {
    Depth guard(*this);
    if (isOp("!")) {
      auto n = node(Node::Kind::kNot, take().position);
      n->children = {parseUnary()};
      return n;
    }
    return parsePostfix(parsePrimary());
  }

  NodePtr parsePostfix(NodePtr base) {
    for (;;) {
      if (isOp(".")) {
        size_t p = take().position;
        if (peek().kind != Token::Kind::kIdent) fail("a field or method name after '.'");
        std::string name = take().text;
        if (isOp("(")) {
          take();
          auto m = node(Node::Kind::kMethod, p);
          m->name = name;
          m->function = functionNamed(name);
          m->children.push_back(base);
          if (name == "all" || name == "any" || name == "filter") {
            if (peek().kind != Token::Kind::kIdent)
              fail("a variable name as the first argument of " + name);
            m->lambdaVar = take().text;
            expect(",");
            m->children.push_back(parseOr());
          } else if (!isOp(")")) {
            m->children.push_back(parseOr());
            while (isOp(",")) {
              take();
              m->children.push_back(parseOr());
            }
          }
          expect(")");
          base = m;
        } else {
          auto m = node(Node::Kind::kMember, p);
          m->name = name;
          if (name == "count") m->function = Node::Function::kCount;  // `.count` on a list
          m->children.push_back(base);
          base = m;
        }
      } else if (isOp("[")) {
        size_t p = take().position;
        NodePtr first = parseOr();
        if (isOp("..")) {
          take();
          auto s = node(Node::Kind::kSlice, p);
          s->children = {base, first, parseOr()};
          expect("]");
          base = s;
        } else {
          auto s = node(Node::Kind::kIndex, p);
          s->children = {base, first};
          expect("]");
          base = s;
        }
      } else {
        return base;
      }
    }
  }

  NodePtr parsePrimary() {
    const Token& t = peek();
    size_t p = t.position;
    switch (t.kind) {
      case Token::Kind::kNumber: {
        auto n = node(Node::Kind::kLiteral, p);
        std::string digits = take().text;
        auto value = parseDecimal(digits);  // nullopt past 100 digits
        if (!value || *value >= (Integer(1) << 256))
          throw SyntaxError{p, "an integer below 2^256",
                            "'" + digits.substr(0, 90) + (digits.size() > 90 ? "…'" : "'")};
        n->value = Value::integer(*value);
        return n;
      }
      case Token::Kind::kString: {
        auto n = node(Node::Kind::kLiteral, p);
        n->value = Value::string(take().text);
        return n;
      }
      case Token::Kind::kIdent: {
        std::string name = take().text;
        if (name == "true" || name == "false") {
          auto n = node(Node::Kind::kLiteral, p);
          n->value = Value::of(name == "true");
          return n;
        }
        if (name == "in") throw SyntaxError{p, "a value", "'in'"};
        if (isOp("(")) {
          take();
          auto call = node(Node::Kind::kCall, p);
          call->name = name;
          if (!isOp(")")) {
            call->children.push_back(parseOr());
            while (isOp(",")) {
              take();
              call->children.push_back(parseOr());
            }
          }
          expect(")");
          return call;
        }
        auto n = node(Node::Kind::kIdent, p);
        n->name = name;
        return n;
      }
      case Token::Kind::kOp:
        if (t.text == "(") {
          take();
          NodePtr inner = parseOr();
          expect(")");
          return inner;
        }
        if (t.text == "[") {
          take();
          auto list = node(Node::Kind::kList, p);
          if (!isOp("]")) {
            list->children.push_back(parseOr());
            while (isOp(",")) {
              take();
              list->children.push_back(parseOr());
            }
          }
          expect("]");
          // A list of constants is itself a constant: build it once, not per evaluation.
          bool constant =
              std::all_of(list->children.begin(), list->children.end(),
                          [](const NodePtr& c) { return c->kind == Node::Kind::kLiteral; });
          if (constant) {
            List items;
            for (const auto& c : list->children) items.push_back(c->value);
            auto literal = node(Node::Kind::kLiteral, p);
            literal->value = Value::listOf(std::move(items));
            return literal;
          }
          return list;
        }
        if (t.text == "{") {
          take();
          auto s = node(Node::Kind::kStruct, p);
          if (!isOp("}")) {
            do {
              if (isOp(",")) take();
              if (peek().kind != Token::Kind::kIdent) fail("a field name");
              s->fieldNames.push_back(take().text);
              expect(":");
              s->children.push_back(parseOr());
            } while (isOp(","));
          }
          expect("}");
          return s;
        }
        break;
      case Token::Kind::kEnd:
        break;
    }
    fail("a value (a name, number, 'string', list, struct or parenthesis)");
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

void collect(const Node& n, std::set<std::string>& bound, std::set<std::string>& out) {
  if (n.kind == Node::Kind::kIdent && !bound.count(n.name)) out.insert(n.name);
  if (n.kind == Node::Kind::kMethod && !n.lambdaVar.empty()) {
    collect(*n.children[0], bound, out);
    bool fresh = bound.insert(n.lambdaVar).second;
    for (size_t i = 1; i < n.children.size(); ++i) collect(*n.children[i], bound, out);
    if (fresh) bound.erase(n.lambdaVar);
    return;
  }
  for (const auto& c : n.children) collect(*c, bound, out);
}

}  // namespace

NodePtr parse(std::string_view source) {
  if (source.size() > 64 * 1024)
    throw SyntaxError{0, "an expression of at most 65536 bytes",
                      std::to_string(source.size()) + " bytes"};
  NodePtr root = Parser(lex(source)).parseAll();
  assignShapes(const_cast<Node&>(*root));  // not shared yet
  return root;
}

std::set<std::string> freeIdentifiers(const Node& node) {
  std::set<std::string> bound, out;
  collect(node, bound, out);
  return out;
}

}  // namespace signet::policy
