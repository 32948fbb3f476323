// PostgreSQL through libpq. Statements are prepared once per connection under a name of their
// own (PQprepare) and run with text parameters whose types the server infers from the
// statement, as Poco's connector did before; `?` becomes $1, $2 ...
#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <unordered_map>

#include "store/sql_connection.hpp"

namespace signet {

namespace {

// `?` outside quoted text becomes $1, $2 ...
std::string numberPlaceholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$' + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

// Whether a statement can be prepared: queries and row changes. Transaction control and schema
// changes run as they are.
bool preparable(const std::string& sql) {
  size_t i = 0;
  while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
  std::string word;
  for (; i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i])); ++i)
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i])));
  return word == "SELECT" || word == "INSERT" || word == "UPDATE" || word == "DELETE" ||
         word == "WITH";
}

bool integerType(Oid type) {
  return type == 20 || type == 21 || type == 23 || type == 26;  // int8, int2, int4, oid
}

class PostgresConnection : public SqlConnection {
 public:
  bool isPostgres() const override { return true; }
  explicit PostgresConnection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string why = conn_ ? PQerrorMessage(conn_) : "out of memory";
      PQfinish(conn_);
      throw DatabaseError("cannot connect to PostgreSQL: " + why);
    }
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  void begin() override { exec("BEGIN", {}); }
  void beginSnapshot() override { exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {}); }
  void endSnapshot() override { exec("ROLLBACK", {}); }
  bool healthy() const override {
    return PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) == PQTRANS_IDLE;
  }
  size_t preparedStatements() const override { return names_.size(); }
  bool alive() override {
    // Reads what the server sent without waiting: a terminated backend's notice and EOF make
    // PQconsumeInput fail or the status bad.
    return PQconsumeInput(conn_) == 1 && PQstatus(conn_) == CONNECTION_OK;
  }

  size_t exec(const std::string& sql, const SqlParams& params) override {
    Result r = run(sql, params);
    const char* n = PQcmdTuples(r.get());
    return n && *n ? static_cast<size_t>(std::strtoull(n, nullptr, 10)) : 0;
  }

  std::vector<Row> query(const std::string& sql, const SqlParams& params) override {
    Result r = run(sql, params);
    int rowCount = PQntuples(r.get()), columns = PQnfields(r.get());
    std::vector<Row> rows;
    rows.reserve(rowCount);
    for (int i = 0; i < rowCount; ++i) {
      std::vector<SqlValue> cells;
      cells.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r.get(), i, c)) {
          cells.emplace_back(nullptr);
        } else if (integerType(PQftype(r.get(), c))) {
          cells.emplace_back(
              static_cast<int64_t>(std::strtoll(PQgetvalue(r.get(), i, c), nullptr, 10)));
        } else {
          cells.emplace_back(std::string(PQgetvalue(r.get(), i, c), PQgetlength(r.get(), i, c)));
        }
      }
      rows.emplace_back(std::move(cells));
    }
    return rows;
  }

 private:
  using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

  Result run(const std::string& sql, const SqlParams& params) {
    if (!preparable(sql)) {
      if (!params.empty())
        throw DatabaseError("parameters given to a statement run as it is: " + sql);
      return check(Result(PQexec(conn_, sql.c_str()), &PQclear), sql);
    }
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (auto* s = std::get_if<std::string>(&params[i])) {
        values[i] = s->c_str();
      } else if (auto* n = std::get_if<int64_t>(&params[i])) {
        texts[i] = std::to_string(*n);
        values[i] = texts[i].c_str();
      } else {
        values[i] = nullptr;
      }
    }
    const std::string& name = prepared(sql, static_cast<int>(params.size()));
    Result r(PQexecPrepared(conn_, name.c_str(), static_cast<int>(params.size()), values.data(),
                            nullptr, nullptr, 0),
             &PQclear);
    // A schema change since the statement was prepared (another gateway enabling a plugin)
    // can make the server refuse the old plan: prepare it again, once.
    if (PQresultStatus(r.get()) == PGRES_FATAL_ERROR && sqlState(r.get()) == "0A000") {
      forget(sql);
      if (PQtransactionStatus(conn_) != PQTRANS_IDLE) return check(std::move(r), sql);
      const std::string& again = prepared(sql, static_cast<int>(params.size()));
      r.reset(PQexecPrepared(conn_, again.c_str(), static_cast<int>(params.size()), values.data(),
                             nullptr, nullptr, 0));
    }
    return check(std::move(r), sql);
  }

  const std::string& prepared(const std::string& sql, int params) {
    if (auto it = names_.find(sql); it != names_.end()) return it->second;
    if (names_.size() >= kMaxPreparedStatements) {
      check(Result(PQexec(conn_, "DEALLOCATE ALL"), &PQclear), "DEALLOCATE ALL");
      names_.clear();
    }
    std::string name = "s" + std::to_string(++counter_);
    check(Result(PQprepare(conn_, name.c_str(), numberPlaceholders(sql).c_str(), params, nullptr),
                 &PQclear),
          sql);
    return names_.emplace(sql, std::move(name)).first->second;
  }

  void forget(const std::string& sql) {
    auto it = names_.find(sql);
    if (it == names_.end()) return;
    Result(PQexec(conn_, ("DEALLOCATE " + it->second).c_str()), &PQclear);
    names_.erase(it);
  }

  static std::string sqlState(const PGresult* r) {
    const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    return s ? s : "";
  }

  Result check(Result r, const std::string& sql) {
    auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    std::string why = r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_);
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    throw DatabaseError("PostgreSQL [" + sql + "]: " + why);
  }

  PGconn* conn_;
  std::unordered_map<std::string, std::string> names_;
  uint64_t counter_ = 0;
};

}  // namespace

std::unique_ptr<SqlConnection> openPostgres(const std::string& conninfo) {
  return std::make_unique<PostgresConnection>(conninfo);
}

}  // namespace signet
