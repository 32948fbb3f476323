// PostgreSQL through libpq. Statements are prepared once per connection under a name of their
// own (PQprepare) and run with text parameters whose types the server infers from the
// statement, as Poco's connector did before; `?` becomes $1, $2 ...
//
// Every exchange with the server is a round trip on the path of a request, and a batch's writes
// run one after another on one connection. So the commands that open something (BEGIN, a
// SAVEPOINT) or close it well (RELEASE SAVEPOINT) are not sent on their own: they wait and go
// with the next statement, in one message sequence of libpq's pipeline mode, with one answer
// awaited (https://www.postgresql.org/docs/current/libpq-pipeline-mode.html). A write of three
// statements then costs three round trips instead of five. A row change whose answer no one
// reads (execUnanswered, for rows with fresh keys) waits the same way. A failure of a waiting
// command is reported by the statement it went with; pipeline mode skips what follows a failure, so
// that statement has not run either. A read snapshot's ROLLBACK is sent without waiting for its
// answer, which the connection's next use reads (endSnapshot).
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>
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

// A parameter as the text libpq sends: a string's own bytes, a number written out (into
// `scratch`, which must outlive the sending), or null.
const char* paramText(const SqlValue& p, std::string& scratch) {
  if (auto* s = std::get_if<std::string>(&p)) return s->c_str();
  if (auto* n = std::get_if<int64_t>(&p)) return (scratch = std::to_string(*n)).c_str();
  return nullptr;
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
      throw StoreUnavailable("cannot connect to PostgreSQL: " + trimmed(why));
    }
    // Text crosses as UTF-8 whatever the database's encoding (libpq would take the database's):
    // the gateway's text is JSON, and what the server hashes as UTF-8 (the activity log's
    // triggers, convert_to(…, 'UTF8')) must be the bytes the gateway reads.
    if (PQsetClientEncoding(conn_, "UTF8") != 0) {
      std::string why = PQerrorMessage(conn_);
      PQfinish(conn_);
      throw StoreUnavailable("cannot set PostgreSQL's client encoding to UTF8: " + trimmed(why));
    }
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  void begin() override {
    snapshot_ = false;
    // Named, not left to the server's default: a write that waits for a row lock (the activity
    // log's head) must then read the row as committed, which REPEATABLE READ would refuse.
    waiting_.push_back({"BEGIN ISOLATION LEVEL READ COMMITTED"});
  }
  void beginSnapshot() override {
    snapshot_ = true;
    waiting_.push_back({"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"});
  }
  // A snapshot wrote nothing, so how its ROLLBACK ends does not matter to the request that read
  // through it: the ROLLBACK is sent and its answer is read by whoever uses the connection next
  // (collectRollback), one round trip fewer on the path of every decision. The server ends the
  // transaction as soon as it reads the command, so no snapshot stays open in the pool.
  void endSnapshot() override {
    if (dropUnsentTransaction()) return;
    discard(waiting_);  // reads sent ahead that no one read: the ROLLBACK goes alone
    if (PQsendQuery(conn_, "ROLLBACK") != 1) fail("PostgreSQL [ROLLBACK]: " + lastError());
    rollbackUnanswered_ = true;
  }
  void rollback() override {
    if (dropUnsentTransaction()) return;
    discard(waiting_);  // the ROLLBACK would undo whatever waits
    exec("ROLLBACK", {});
  }
  void commit() override {
    Result r = run("COMMIT", {});
    // A transaction a failed statement left aborted ends in ROLLBACK, answered without an error.
    if (std::string_view(PQcmdStatus(r.get())) != "COMMIT")
      throw DatabaseError(
          "PostgreSQL [COMMIT]: the server rolled the transaction back, a statement in it having "
          "failed");
  }
  void savepoint(int n) override { waiting_.push_back({"SAVEPOINT " + savepointName(n)}); }
  void releaseSavepoint(int n) override {
    waiting_.push_back({"RELEASE SAVEPOINT " + savepointName(n)});
  }
  void execUnanswered(const std::string& sql, const SqlParams& params) override {
    if (!wait(sql, params, /*read=*/false)) exec(sql, params);
  }
  std::shared_ptr<RowsAhead> queryAhead(const std::string& sql, const SqlParams& params) override {
    if (!wait(sql, params, /*read=*/true)) return std::make_shared<RowsAhead>(query(sql, params));
    auto ahead = std::make_shared<RowsAhead>([this] { sendWaiting(); });
    waiting_.back().ahead = ahead;
    return ahead;
  }
  bool healthy() const override {
    auto state = PQtransactionStatus(conn_);
    return waiting_.empty() && PQstatus(conn_) == CONNECTION_OK &&
           (state == PQTRANS_IDLE || (rollbackUnanswered_ && state == PQTRANS_ACTIVE));
  }
  size_t preparedStatements() const override { return names_.size(); }
  size_t roundTrips() const override { return roundTrips_; }
  bool alive() override {
    // Reads what the server sent without waiting: a terminated backend's notice and EOF make
    // PQconsumeInput fail or the status bad. A snapshot's ROLLBACK that did not end well leaves
    // the connection to be dropped here rather than to fail the next request.
    return PQconsumeInput(conn_) == 1 && PQstatus(conn_) == CONNECTION_OK && collectRollback();
  }

  size_t exec(const std::string& sql, const SqlParams& params) override {
    Result r = run(sql, params);
    const char* n = PQcmdTuples(r.get());
    return n && *n ? static_cast<size_t>(std::strtoull(n, nullptr, 10)) : 0;
  }

  std::vector<Row> query(const std::string& sql, const SqlParams& params) override {
    return rowsOf(run(sql, params).get());
  }

 private:
  using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

  static std::vector<Row> rowsOf(PGresult* r) {
    int rowCount = PQntuples(r), columns = PQnfields(r);
    std::vector<Row> rows;
    rows.reserve(rowCount);
    auto names = std::make_shared<std::vector<std::string>>();
    for (int c = 0; c < columns; ++c) names->emplace_back(PQfname(r, c));
    for (int i = 0; i < rowCount; ++i) {
      std::vector<SqlValue> cells;
      cells.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r, i, c)) {
          cells.emplace_back(nullptr);
        } else if (integerType(PQftype(r, c))) {
          cells.emplace_back(static_cast<int64_t>(std::strtoll(PQgetvalue(r, i, c), nullptr, 10)));
        } else {
          cells.emplace_back(std::string(PQgetvalue(r, i, c), PQgetlength(r, i, c)));
        }
      }
      rows.emplace_back(std::move(cells), names);
    }
    return rows;
  }

  // A transaction whose BEGIN is still waiting never reached the server: there is nothing to
  // undo, only the waiting commands to forget. Whether that was the case.
  bool dropUnsentTransaction() {
    if (waiting_.empty() || !waiting_.front().sql.starts_with("BEGIN")) return false;
    discard(waiting_);
    return true;
  }

  // Reads the answer of a snapshot's ROLLBACK sent without waiting (endSnapshot), if one is
  // due; by now it has usually arrived. Whether the connection is out of any transaction.
  bool collectRollback() {
    if (!rollbackUnanswered_) return true;
    rollbackUnanswered_ = false;
    bool ended = true;
    while (PGresult* r = PQgetResult(conn_)) {
      ended = ended && PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
    }
    return ended && PQtransactionStatus(conn_) == PQTRANS_IDLE;
  }

  Result run(const std::string& sql, const SqlParams& params) {
    if (!collectRollback()) fail("PostgreSQL [ROLLBACK]: " + lastError());
    if (!preparable(sql)) {
      if (!params.empty())
        throw DatabaseError("parameters given to a statement run as it is: " + sql);
      // A statement waiting with its parameters goes in pipeline mode, this command after it.
      if (waitingStatement()) return pipelined(sql, "", {});
      // One simple query runs several commands in order, and stops at the first that fails:
      // how a COMMIT goes with the RELEASE before it. (Pipeline mode would refuse a text of
      // several commands, as a schema change may be.)
      std::string text = sql;
      if (!waiting_.empty()) text = joined(waiting_) + "; " + sql;
      waiting_.clear();
      ++roundTrips_;
      return check(Result(PQexec(conn_, text.c_str()), &PQclear), text);
    }
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size());
    for (size_t i = 0; i < params.size(); ++i) values[i] = paramText(params[i], texts[i]);
    const std::string& name = prepared(sql, static_cast<int>(params.size()));
    if (!waiting_.empty()) return pipelined(sql, name, values);
    ++roundTrips_;
    Result r(PQexecPrepared(conn_, name.c_str(), static_cast<int>(params.size()), values.data(),
                            nullptr, nullptr, 0),
             &PQclear);
    // A schema change since the statement was prepared (another gateway enabling a plugin)
    // can make the server refuse the old plan: prepare it again, once.
    if (PQresultStatus(r.get()) == PGRES_FATAL_ERROR && sqlState(r.get()) == "0A000") {
      forget(sql);
      if (PQtransactionStatus(conn_) != PQTRANS_IDLE) return check(std::move(r), sql);
      const std::string& again = prepared(sql, static_cast<int>(params.size()));
      ++roundTrips_;
      r.reset(PQexecPrepared(conn_, again.c_str(), static_cast<int>(params.size()), values.data(),
                             nullptr, nullptr, 0));
    }
    return check(std::move(r), sql);
  }

  // A command or statement waiting to go with the next one: a command's text alone, or a
  // prepared statement's name and parameter values as text (execUnanswered).
  struct Waiting {
    std::string sql;
    std::string name;  // empty for a command run as it is
    std::vector<std::optional<std::string>> values;
    std::shared_ptr<RowsAhead> ahead = nullptr;  // a query's, whose rows someone reads later
  };

  // Queues a statement to go with the next one, when it can wait: in a transaction, and prepared
  // already. Outside a transaction a statement commits by itself, and its answer says whether it
  // did. One not prepared yet is run at once: preparing it is a round trip of its own anyway. In
  // a snapshot only a read waits: the server refuses a write there, and that must reach the
  // caller that made it. Whether it was queued.
  bool wait(const std::string& sql, const SqlParams& params, bool read) {
    auto it = names_.find(sql);
    if (it == names_.end() || (snapshot_ && !read) ||
        (waiting_.empty() && PQtransactionStatus(conn_) != PQTRANS_INTRANS))
      return false;
    Waiting w{sql, it->second, {}, nullptr};
    w.values.reserve(params.size());
    std::string scratch;
    for (const auto& p : params) {
      const char* text = paramText(p, scratch);
      w.values.push_back(text ? std::optional<std::string>(text) : std::nullopt);
    }
    waiting_.push_back(std::move(w));
    return true;
  }

  // Sends what waits, with no statement of the caller's after it (a RowsAhead read before the
  // next statement): the last waiting one goes as the pipeline's statement.
  void sendWaiting() {
    if (waiting_.empty()) return;
    if (!collectRollback()) fail("PostgreSQL [ROLLBACK]: " + lastError());
    std::vector<Waiting> last;
    last.push_back(std::move(waiting_.back()));
    waiting_.pop_back();
    std::vector<const char*> values;
    for (const auto& v : last[0].values) values.push_back(v ? v->c_str() : nullptr);
    Forgotten unanswered{last};
    Result r = pipelined(last[0].sql, last[0].name, values);
    if (last[0].ahead) last[0].ahead->answer(rowsOf(r.get()));
  }

  // The queries among `commands` that are not answered by now never will be.
  static void forgetQueries(std::vector<Waiting>& commands) {
    for (auto& w : commands)
      if (w.ahead) w.ahead->forget();
  }

  // Forgets, on leaving the scope, the queries of commands that were sent: those not answered by
  // then (a failure before them) never will be.
  struct Forgotten {
    std::vector<Waiting>& sent;
    ~Forgotten() { forgetQueries(sent); }
  };

  // Forgets waiting commands; a query among them that was not answered will not be.
  static void discard(std::vector<Waiting>& waiting) {
    forgetQueries(waiting);
    waiting.clear();
  }

  bool waitingStatement() const {
    return std::any_of(waiting_.begin(), waiting_.end(),
                       [](const Waiting& w) { return !w.name.empty(); });
  }

  static std::string joined(const std::vector<Waiting>& commands) {
    std::string out;
    for (const auto& c : commands) out += (out.empty() ? "" : "; ") + c.sql;
    return out;
  }

  // Queues one command (no name) or prepared statement in pipeline mode.
  bool send(const std::string& sql, const std::string& name,
            const std::vector<const char*>& values) {
    if (name.empty())
      return PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
    return PQsendQueryPrepared(conn_, name.c_str(), static_cast<int>(values.size()), values.data(),
                               nullptr, nullptr, 0);
  }

  // Sends what waits and then the statement (prepared under `name`, or a command as it is when
  // `name` is empty) as one pipeline with one sync, and reads every answer. Returns the
  // statement's result, or throws the first failure: a waiting one's, named by its text, or the
  // statement's.
  Result pipelined(const std::string& sql, const std::string& name,
                   const std::vector<const char*>& values) {
    std::vector<Waiting> waiting;
    waiting.swap(waiting_);
    Forgotten unanswered{waiting};  // a failure leaves the queries after it unanswered
    ++roundTrips_;
    if (PQenterPipelineMode(conn_) != 1) fail("PostgreSQL: " + lastError());
    bool sent = true;
    std::vector<const std::string*> commands;  // each sent one's text, to name its failure
    for (const auto& w : waiting) {
      std::vector<const char*> texts;
      for (const auto& v : w.values) texts.push_back(v ? v->c_str() : nullptr);
      sent = sent && send(w.sql, w.name, texts);
      commands.push_back(&w.sql);
    }
    sent = sent && send(sql, name, values);
    sent = sent && PQpipelineSync(conn_);
    if (!sent) {
      // The connection failed while sending: it is closed by the pool (not healthy).
      std::string why = lastError();
      PQexitPipelineMode(conn_);
      fail("PostgreSQL [" + sql + "]: " + why);
    }
    commands.push_back(&sql);
    std::vector<Result> answers;
    for (size_t i = 0; i < commands.size(); ++i) {
      Result r(PQgetResult(conn_), &PQclear);
      if (!r) break;  // the connection was lost: what was not answered is reported below
      while (PGresult* end = PQgetResult(conn_)) PQclear(end);  // each answer ends with a null
      answers.push_back(std::move(r));
    }
    for (Result sync(PQgetResult(conn_), &PQclear);
         sync && PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC;
         sync.reset(PQgetResult(conn_))) {
    }
    PQexitPipelineMode(conn_);
    // A plan the server refuses after a schema change is prepared again next time, whichever
    // statement of the pipeline it was (a read sent ahead, say); inside a transaction, as this
    // is, the statement cannot simply be retried (see run).
    for (size_t i = 0; i < answers.size(); ++i)
      if (PQresultStatus(answers[i].get()) == PGRES_FATAL_ERROR &&
          sqlState(answers[i].get()) == "0A000")
        forget(*commands[i]);
    for (size_t i = 0; i + 1 < answers.size(); ++i) {
      Result answer = check(std::move(answers[i]), *commands[i]);
      if (waiting[i].ahead) waiting[i].ahead->answer(rowsOf(answer.get()));
    }
    if (answers.size() < commands.size())
      fail("PostgreSQL [" + *commands[answers.size()] + "]: " + lastError());
    return check(std::move(answers.back()), sql);
  }

  // libpq's messages end with a newline, which would break the log line they go into.
  static std::string trimmed(std::string why) {
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    return why;
  }
  std::string lastError() const { return trimmed(PQerrorMessage(conn_)); }

  const std::string& prepared(const std::string& sql, int params) {
    if (auto it = names_.find(sql); it != names_.end()) return it->second;
    // Not while a statement waits under its name: the cache may grow past its bound until then.
    if (names_.size() >= kMaxPreparedStatements && !waitingStatement()) {
      ++roundTrips_;
      check(Result(PQexec(conn_, "DEALLOCATE ALL"), &PQclear), "DEALLOCATE ALL");
      names_.clear();
    }
    std::string name = "s" + std::to_string(++counter_);
    ++roundTrips_;
    check(Result(PQprepare(conn_, name.c_str(), numberPlaceholders(sql).c_str(), params, nullptr),
                 &PQclear),
          sql);
    return names_.emplace(sql, std::move(name)).first->second;
  }

  void forget(const std::string& sql) {
    auto it = names_.find(sql);
    if (it == names_.end()) return;
    ++roundTrips_;
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
    std::string why = r ? trimmed(PQresultErrorMessage(r.get())) : lastError();
    fail("PostgreSQL [" + sql + "]: " + why, r.get());
  }

  // StoreUnavailable when the connection is lost or the server's answer (`r`, when there is
  // one) is one of the SQLSTATEs that say "not now" rather than "not this"; DatabaseError
  // otherwise.
  [[noreturn]] void fail(const std::string& message, const PGresult* r = nullptr) const {
    if (PQstatus(conn_) != CONNECTION_OK) throw StoreUnavailable(message);
    std::string state = r ? sqlState(r) : "";
    bool transient = state.starts_with("08") ||  // connection exception
                     state == "57P01" || state == "57P02" || state == "57P03" ||  // shutting down
                     state == "40001" || state == "40P01" ||  // serialization failure, deadlock
                     state == "53300" ||                      // too many connections
                     // A write refused because the server is a standby (not promoted yet); in a
                     // snapshot of ours, a write is the caller's mistake.
                     (state == "25006" && !snapshot_);
    if (transient) throw StoreUnavailable(message);
    throw DatabaseError(message);
  }

  PGconn* conn_;
  std::unordered_map<std::string, std::string> names_;
  uint64_t counter_ = 0;
  std::vector<Waiting> waiting_;     // what goes with the next statement, in order
  bool rollbackUnanswered_ = false;  // a snapshot's ROLLBACK was sent, its answer not read
  bool snapshot_ = false;            // the last transaction begun is a read-only snapshot
  size_t roundTrips_ = 0;
};

}  // namespace

std::unique_ptr<SqlConnection> openPostgres(const std::string& conninfo) {
  return std::make_unique<PostgresConnection>(conninfo);
}

}  // namespace signet
