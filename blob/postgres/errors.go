package postgres

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes, https://www.postgresql.org/docs/current/errcodes-appendix.html
const (
	codeSerialization = "40001"
	codeDeadlock      = "40P01"
	codeDiskFull      = "53100"
	codeReadOnlySQL   = "25006"
	codeProgramLimit  = "54000"
	codeUnique        = "23505"
)

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == codeUnique
}

func isRetryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == codeSerialization || pe.Code == codeDeadlock)
}

// mapErr turns driver errors into engine errors with a caller-safe message;
// the cause is kept for the log.
func mapErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == codeSerialization || pe.Code == codeDeadlock:
			return engine.Wrap(err, engine.CodeUnavailable, "storage is busy, try again")
		case pe.Code == codeDiskFull:
			return engine.Wrap(err, engine.CodeInsufficientStore, "the database's disk is full")
		case pe.Code == codeReadOnlySQL:
			return engine.Wrap(err, engine.CodeUnavailable, "storage is read-only")
		case pe.Code == codeProgramLimit:
			return engine.Wrap(err, engine.CodePayloadTooLarge, "a value is too large for the database")
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "53"), strings.HasPrefix(pe.Code, "57P"):
			return engine.Wrap(err, engine.CodeUnavailable, "the database is unavailable")
		}
		return err
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ne) || errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return engine.Wrap(err, engine.CodeUnavailable, "the database is unavailable")
	}
	return err
}
